package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// sameTimeImport imports n prompts of one session that share one timestamp (an export of a
// scripted session, or a clock that did not move), in parts of 512 as archive sends them,
// into a database that already holds captured (unhashed) prompts at that time, and returns
// how long ImportParts took and what it counted.
func sameTimeImport(t *testing.T, n int) (time.Duration, ImportResult) {
	t.Helper()
	db, _ := openTest(t)
	ctx := context.Background()
	s := session("same", "proj")
	// Two captured prompts at that time: one the file holds too (skipped), one not.
	ingest(t, db,
		Captured{Kind: CapturePrompt, At: t0, Session: s, Prompt: Prompt{SessionID: s.ID, Project: s.Project, Text: "prompt 0", At: t0, RecordID: "r0"}},
		Captured{Kind: CapturePrompt, At: t0, Session: s, Prompt: Prompt{SessionID: s.ID, Project: s.Project, Text: "captured only", At: t0, RecordID: "r1"}})
	var parts []ImportBatch
	for i := 0; i < n; i += 512 {
		var b ImportBatch
		if i == 0 {
			b.Sessions = []Session{s}
		}
		for j := i; j < min(i+512, n); j++ {
			b.Prompts = append(b.Prompts, Prompt{SessionID: s.ID, Project: s.Project, Text: fmt.Sprintf("prompt %d", j), At: t0})
		}
		parts = append(parts, b)
	}
	start := time.Now()
	res, err := db.ImportParts(ctx, func(add func(ImportBatch) error) error {
		for _, b := range parts {
			if err := add(b); err != nil {
				return err
			}
		}
		return nil
	})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("ImportParts of %d: %v", n, err)
	}
	if got := count(t, db, `SELECT count(*) FROM prompts WHERE session_id = 'same'`); got != n+1 {
		t.Errorf("%d prompts stored after importing %d; want %d", got, n, n+1)
	}
	return took, res
}

// TestImportSameTimestampLinear: importing prompts that share a timestamp costs in
// proportion to their number. A lookup that scanned every stored row of that session and
// time per imported row made it quadratic (9,851 such prompts took 76 s): 10 times the
// prompts then cost some 100 times as long. The floor is 1,000 prompts, measured in the
// same run; the ratio asserted is 20 (linear is about 10).
func TestImportSameTimestampLinear(t *testing.T) {
	small, res := sameTimeImport(t, 1000)
	if res.Prompts.Added != 999 || res.Prompts.Skipped != 1 {
		t.Errorf("1,000 prompts: %+v; want 999 added, 1 skipped (the one captured before)", res.Prompts)
	}
	large, res := sameTimeImport(t, 10000)
	if res.Prompts.Added != 9999 || res.Prompts.Skipped != 1 {
		t.Errorf("10,000 prompts: %+v; want 9,999 added, 1 skipped", res.Prompts)
	}
	ratio := float64(large) / float64(small)
	t.Logf("same-timestamp import: 1,000 prompts %v, 10,000 prompts %v (ratio %.1f)", small.Round(time.Millisecond), large.Round(time.Millisecond), ratio)
	if ratio > 20 {
		t.Errorf("10,000 same-timestamp prompts took %.1f times as long as 1,000 (%v, %v); want under 20 (linear: 10)", ratio, large, small)
	}
}

// TestImportMergesIndex: an import that adds rows leaves the search index in one segment,
// where every query word is sought once instead of once per segment. The control: what
// two captures stored before it is in more than one.
func TestImportMergesIndex(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	s := session("merge", "proj")
	for i := range 2 {
		ingest(t, db, Captured{Kind: CapturePrompt, At: t0, Session: s,
			Prompt: Prompt{SessionID: s.ID, Project: s.Project, Text: fmt.Sprintf("captured %d", i), At: t0, RecordID: fmt.Sprintf("r%d", i)}})
	}
	const segments = `SELECT count(DISTINCT segid) FROM search_fts_idx`
	if n := count(t, db, segments); n < 2 {
		t.Fatalf("two captures left %d index segments; want at least 2 for the import to merge", n)
	}
	var b ImportBatch
	for i := range 2 * importBatch {
		b.Prompts = append(b.Prompts, Prompt{SessionID: s.ID, Project: s.Project, Text: fmt.Sprintf("imported %d", i), At: t0.Add(time.Duration(i))})
	}
	if _, err := db.ImportParts(ctx, func(add func(ImportBatch) error) error { return add(b) }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, segments); n != 1 {
		t.Errorf("the import left %d index segments; want 1", n)
	}
}
