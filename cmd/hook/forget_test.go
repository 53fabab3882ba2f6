package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// On a terminal, forget asks; only y or yes removes.
func TestForgetAsksOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		answer string
		rc     int
		left   int
	}{{"\n", 1, 4}, {"n\n", 1, 4}, {"nope\n", 1, 4}, {"", 1, 4}, {"y\n", 0, 3}, {"YES\n", 0, 3}} {
		data := t.TempDir()
		db, err := memory.Memory{DataDir: data}.OpenWrite()
		if err != nil {
			t.Fatal(err)
		}
		memtest.Fill(t, db)
		db.Close()
		var out, errb bytes.Buffer
		rc := run(&proc{
			args: []string{"forget", "1"}, env: settings.Env{"CLAUDE_MEM_DATA_DIR": data, "HOME": t.TempDir()},
			stdin: strings.NewReader(tc.answer), stdout: &out, stderr: &errb, now: time.Now, goos: "linux",
			isTerminal: func() bool { return true },
		})
		if rc != tc.rc || !strings.Contains(out.String(), "Forget these? [y/N] ") {
			t.Errorf("answer %q: rc %d, stdout %q, stderr %q; want %d and the question", tc.answer, rc, out.String(), errb.String(), tc.rc)
		}
		db, err = memory.Memory{DataDir: data}.OpenWrite()
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.ForgetPreview(context.Background(), store.ForgetScope{Before: memtest.At(1000)}, 0)
		db.Close()
		if err != nil || p.Observations != tc.left {
			t.Errorf("answer %q: %d observations left, %v; want %d", tc.answer, p.Observations, err, tc.left)
		}
	}
}
