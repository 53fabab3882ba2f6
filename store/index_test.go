package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/store"
)

// The FTS5 indexes follow their content tables through the triggers: an update or a
// delete of a row (no code path does either yet; a future cleanup or edit might) changes
// what search finds, and the index stays consistent with its content.
func TestFTSTriggersFollowUpdateAndDelete(t *testing.T) {
	ctx := context.Background()
	db, _ := memtest.Open(t)
	memtest.Searchable(t, db)
	found := func(kind, query string) int {
		t.Helper()
		hits, err := db.Search(ctx, query, "", 20)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, h := range hits {
			if !h.Context && h.Kind == kind {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		name       string
		sql        string
		gone, seen string
	}{
		{"observation update", `UPDATE observations SET title = 'Lexer rewritten' WHERE title = 'Use WAL mode'`, "wal", "lexer"},
		{"observation delete", `DELETE FROM observations WHERE title = 'Cache keys'`, "mtime", ""},
		{"summary update", `UPDATE summaries SET request = 'Speed up startup', learned = ''`, "bounds", "startup"},
		{"summary delete", `DELETE FROM summaries`, "startup", ""},
		{"prompt update", `UPDATE prompts SET text = 'yaml please' WHERE text LIKE 'add toml%'`, "support", "yaml"},
		{"prompt delete", `DELETE FROM prompts WHERE text = 'yaml please'`, "yaml", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			kind, _, _ := strings.Cut(c.name, " ")
			if found(kind, c.gone) == 0 {
				t.Fatalf("%q not found before the change", c.gone)
			}
			if err := store.ExecSQL(db, c.sql); err != nil {
				t.Fatal(err)
			}
			if n := found(kind, c.gone); n != 0 {
				t.Errorf("%q still found %d times", c.gone, n)
			}
			if c.seen != "" && found(kind, c.seen) != 1 {
				t.Errorf("%q not found after the change", c.seen)
			}
			if err := db.Integrity(ctx); err != nil {
				t.Errorf("Integrity: %v", err)
			}
		})
	}
}

func TestIntegrityFindsAnIndexOutOfSync(t *testing.T) {
	ctx := context.Background()
	db, _ := memtest.Open(t)
	memtest.Searchable(t, db)
	if err := db.Integrity(ctx); err != nil {
		t.Fatalf("fresh database: %v", err)
	}
	if err := store.ExecSQL(db, `DROP TRIGGER prompts_search_unindex; DROP TRIGGER prompts_search_update; UPDATE prompts SET text = 'edited behind the index'`); err != nil {
		t.Fatal(err)
	}
	var ie *store.IntegrityError
	if err := db.Integrity(ctx); !errors.As(err, &ie) || !strings.Contains(ie.Problems[0], "search_fts") {
		t.Errorf("Integrity: %v, want an *IntegrityError naming search_fts", err)
	}
}
