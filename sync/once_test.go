package sync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
)

type store struct {
	*machine
	closed bool
}

func (s *store) Counts(context.Context) (Counts, error) {
	c := Counts{}
	for _, r := range s.mine {
		if !s.pushed[r.GID] {
			c.Waiting++
		}
	}
	return c, nil
}
func (s *store) Close() error { s.closed = true; return nil }

func testDeps(t *testing.T, st *store, srv *server, connectErr error, h *health.Health) Deps {
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	return Deps{
		Server:    "db.example/mem",
		LockPath:  filepath.Join(t.TempDir(), "sync.lock"),
		OpenStore: func(context.Context) (Store, error) { return st, nil },
		Connect: func(context.Context) (Remote, func(), error) {
			if connectErr != nil {
				return nil, nil, connectErr
			}
			return srv, func() {}, nil
		},
		Classify:     func(err error) Failure { return AuthFailed },
		UpdateHealth: func(fn func(*health.Health)) error { fn(h); return nil },
		Now:          func() time.Time { return t0 },
	}
}

func TestOnce_RecordsSuccessAndFailure(t *testing.T) {
	var h health.Health
	st := &store{machine: newMachine("a", 12)}
	res, err := Once(context.Background(), testDeps(t, st, newServer(), nil, &h), Both, time.Minute, nil)
	if err != nil || res.Pushed != 12 || !st.closed {
		t.Fatalf("%+v %v closed=%v", res, err, st.closed)
	}
	if h.Sync == nil || h.Sync.LastSuccess.IsZero() || h.Sync.Waiting != 0 {
		t.Fatalf("health after success: %+v", h.Sync)
	}
	st2 := &store{machine: newMachine("b", 3)}
	_, err = Once(context.Background(), testDeps(t, st2, nil, errors.New("password authentication failed"), &h), Both, time.Minute, nil)
	f, ok := IsFailure(err)
	if !ok || f != AuthFailed {
		t.Fatalf("err %v: failure %q %v", err, f, ok)
	}
	if h.Sync.LastErrorKind != string(AuthFailed) || h.Sync.Waiting != 3 || h.Sync.FailingSince.IsZero() {
		t.Fatalf("health after failure: %+v", h.Sync)
	}
}

func TestOnce_WaitsForTheLockUntilItsBound(t *testing.T) {
	var h health.Health
	deps := testDeps(t, &store{machine: newMachine("a", 1)}, newServer(), nil, &h)
	release, err := Exclusive(context.Background(), deps.LockPath, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := Once(ctx, deps, Both, 0, nil); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), ErrBusy.Error()) {
		t.Fatalf("err %v", err)
	}
	if h.Sync != nil {
		t.Fatal("a run that never started recorded an outcome")
	}
}

func TestStatus(t *testing.T) {
	loc := time.FixedZone("UTC-8", -8*3600)
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC) // 1 Dec 17:00 at UTC-8
	s := &health.Sync{Server: "db.example/mem", LastSuccess: at, LastError: "tls:\n certificate signed by unknown authority",
		LastErrorKind: string(TLSRefused), LastErrorAt: at}
	st := StatusOf("db.example/mem", s, Counts{Waiting: 4, Held: 2, HeldIDs: []string{"12", "P7"}}, loc)
	var b bytes.Buffer
	st.WriteText(&b)
	for _, want := range []string{"last success  2026-12-01 17:00", "last error    2026-12-01 17:00: tls: certificate", "sslrootcert", "waiting       4", "12 P7"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := st.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["last_success"] != "2026-12-01T17:00:00-08:00" || back["held"] != 2.0 {
		t.Fatalf("json %s: %v", b.String(), err)
	}
	// Another server's record is not this one's; sync off says how to turn it on.
	if st := StatusOf("other", s, Counts{}, loc); st.LastSuccess != "" || st.LastError != "" {
		t.Fatalf("another server's record shown: %+v", st)
	}
	b.Reset()
	StatusOf("", nil, Counts{}, loc).WriteText(&b)
	if !strings.Contains(b.String(), "CLAUDE_MEM_SYNC_URL") {
		t.Fatalf("off: %s", b.String())
	}
}

// A pull held back by a push still running on the server ends the foreground run with what
// it could read, and its line says more waits; a run that read everything (the control)
// does not.
func TestForegroundSaysMoreWaits(t *testing.T) {
	for _, held := range []int{0, 3} {
		var h health.Health
		srv := newServer()
		other := newMachine("b", 10)
		if _, err := Run(context.Background(), other, srv, Push, Options{Server: "s"}); err != nil {
			t.Fatal(err)
		}
		srv.held = held
		var out bytes.Buffer
		if err := Foreground(context.Background(), testDeps(t, &store{machine: newMachine("a", 0)}, srv, nil, &h), &out, nil); err != nil {
			t.Fatal(err)
		}
		if says := strings.Contains(out.String(), "more waits on the server"); says != (held > 0) {
			t.Errorf("%d held back: %q", held, out.String())
		}
	}
}
