package viewer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
)

// bigProject is the benchmarks' project of 100,000 observations, seeded once per process.
var bigProject = struct {
	once sync.Once
	dir  string
	err  error
}{}

func bigFixture(b *testing.B) *fixture {
	bigProject.once.Do(func() {
		bigProject.dir, bigProject.err = os.MkdirTemp("", "viewer-bench-")
		if bigProject.err != nil {
			return
		}
		db, err := memory.Memory{DataDir: bigProject.dir}.OpenWrite()
		if err != nil {
			bigProject.err = err
			return
		}
		defer db.Close()
		bigProject.err = seed.Observations(context.Background(), db, "big", 100_000, t0)
	})
	if bigProject.err != nil {
		b.Fatal(bigProject.err)
	}
	f := newFixture(b)
	f.mem = memory.Memory{DataDir: bigProject.dir}
	f.dbPath = f.mem.Path()
	h, err := New(Config{Memory: f.mem, Loc: time.UTC, Now: func() time.Time { return t0 }, Host: testName, Port: testPort, Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	f.h = h
	return f
}

// BenchmarkTimelinePage100k is the whole handler (guard, database open, keyset query,
// template) for the timeline of a project of 100,000 observations: the first page, and a
// page 50,000 rows deep, which costs the same because it seeks instead of skipping. It
// fails when a page takes 100 ms or more, or the deep page costs over 3× the first.
func BenchmarkTimelinePage100k(b *testing.B) {
	f := bigFixture(b)
	db, err := f.mem.ReadStored()
	if err != nil {
		b.Fatal(err)
	}
	obs, err := db.RecentObservations(context.Background(), "big", 50_000)
	db.Close()
	if err != nil || len(obs) != 50_000 {
		b.Fatalf("%d observations, %v", len(obs), err)
	}
	o := obs[len(obs)-1]
	deep := "/timeline?project=big&after=" + url.QueryEscape(store.Cursor{At: o.At, ID: o.ID}.String())
	if body := f.get(deep, http.StatusOK); strings.Count(body, `href="/record/`) != pageSize {
		b.Fatal("the deep page is not a full page")
	}
	per := map[string]time.Duration{}
	for _, c := range []struct{ name, path string }{{"first", "/timeline?project=big"}, {"deep", deep}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				r := httptest.NewRequest("GET", c.path, nil)
				r.Host = testHost
				r.AddCookie(testCookie())
				f.h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("%d", w.Code)
				}
			}
			per[c.name] = b.Elapsed() / time.Duration(b.N)
			if per[c.name] >= 100*time.Millisecond {
				b.Fatalf("%s page: %v, want under 100 ms", c.name, per[c.name])
			}
		})
	}
	if per["first"] > 0 && per["deep"] > 3*per["first"] {
		b.Fatalf("deep page %v is over 3× the first %v: the timeline is not seeking", per["deep"], per["first"])
	}
	b.Logf("first page %v, a page 50,000 rows in %v", per["first"], per["deep"])
}
