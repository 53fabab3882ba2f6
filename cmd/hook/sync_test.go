//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/sync/server"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func syncPW(person string) string { return "Pg-" + person + "-9c41e" }

// machine is w syncing as person with the server's database db.
func machine(t *testing.T, s *pgtest.Server, db, person, name string) *world {
	w := newWorld(t)
	w.env[envname.SyncURL] = s.SocketURL(person, syncPW(person), db)
	w.env[envname.Machine] = name
	return w
}

// checkout is a git repository whose origin is remote, under w's root.
func (w *world) checkout(dir, remote string) string {
	w.t.Helper()
	repo := filepath.Join(w.root, dir)
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	config := "[remote \"origin\"]\n\turl = " + remote + "\n"
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte(config), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return repo
}

// remember stores an observation titled title in a session of project in cwd, with a prompt.
func (w *world) remember(id, project, cwd, title string, sec int) {
	w.t.Helper()
	db, err := memory.Memory{DataDir: w.dataDir()}.OpenWrite()
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	s := store.Session{ID: id, Project: project, Cwd: cwd, StartedAt: memtest.At(sec)}
	memtest.Start(w.t, db, s)
	memtest.Prompt(w.t, db, s, store.Prompt{Text: "prompt of " + title, At: memtest.At(sec + 1)})
	memtest.Remember(w.t, db, s, sec+2, []store.Observation{{Type: "decision", Title: title, Narrative: "why: " + title}}, nil)
}

// titles is every observation title in w's memory, with its author.
func (w *world) titles() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	db, err := memory.Memory{DataDir: w.dataDir()}.OpenWrite()
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	for _, p := range []string{"payments-api", "pay", "diary"} {
		obs, err := db.RecentObservations(context.Background(), p, 100)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, o := range obs {
			out[o.Title] = o.Author
		}
	}
	return out
}

// prompts is how many prompts w's memory holds (its export's prompt lines).
func (w *world) prompts() int {
	w.t.Helper()
	_, out, _ := w.run("", "export")
	return strings.Count(out, `"kind":"prompt"`)
}

// The commands as people use them, against one real server: alice on a laptop and a desk,
// bob in her team, carol in none. What reaches whom is the server's rule (row-level
// security); the commands only carry it.
func TestSyncAndTeamActions(t *testing.T) {
	s := pgtest.Shared(t)
	db := s.NewDB(t)
	admin := newWorld(t)
	admin.env[envname.SyncURL] = s.DSN(db)
	admin.expect(0, "", []string{"sync", "init"}, "has the schema of this build (installed)\n")
	if out := admin.expect(0, "", []string{"sync", "init"}); strings.Contains(out, "installed") {
		t.Errorf("a second init: %q", out)
	}
	for _, p := range []string{"alice", "bob", "carol"} {
		s.CreatePerson(t, p, syncPW(p))
		s.Exec(t, db, "GRANT "+server.UserRole+" TO "+p)
	}
	s.Exec(t, db, "GRANT "+server.AdminRole+" TO alice")

	laptop, desk := machine(t, s, db, "alice", "laptop"), machine(t, s, db, "alice", "desk")
	bob, carol := machine(t, s, db, "bob", "bobbox"), machine(t, s, db, "carol", "carolbox")
	repo := laptop.checkout("payments-api", "git@github.com:acme/payments-api.git")
	laptop.remember("a1", "payments-api", repo, "webhook verified by HMAC", 10)
	laptop.remember("a2", "diary", filepath.Join(laptop.root, "diary"), "private diary entry", 20)

	laptop.expect(0, "", []string{"team", "create", "core"}, "team core created")
	laptop.expect(0, "", []string{"team", "add", "core", "alice"})
	laptop.expect(0, "", []string{"team", "add", "core", "bob"}, "bob is in team core")
	bob.expect(1, "claude-mem team add: …", []string{"team", "add", "core", "carol"})
	laptop.cwd = repo
	laptop.expect(0, "", []string{"share", "--team", "core"}, "github.com/acme/payments-api is shared with team core")
	out := laptop.expect(0, "", []string{"team", "list", "--json"})
	if !strings.Contains(out, `"bob"`) || !strings.Contains(out, `"github.com/acme/payments-api"`) {
		t.Errorf("team list --json: %s", out)
	}

	laptop.expect(0, "", []string{"sync"}, "sync: pushed 6, pulled ")
	for _, w := range []*world{desk, bob, carol} {
		w.expect(0, "", []string{"sync"}, "sync: pushed 0")
	}
	if got := desk.titles(); len(got) != 2 || got["webhook verified by HMAC"] != "" || got["private diary entry"] != "" {
		t.Errorf("alice's desk: %v (her own records, no author)", got)
	}
	if n := desk.prompts(); n != 2 {
		t.Errorf("alice's desk holds %d prompts, want her 2", n)
	}
	if got := bob.titles(); len(got) != 1 || got["webhook verified by HMAC"] != "alice" {
		t.Errorf("bob: %v (the shared project's observation, by alice, and nothing else)", got)
	}
	if n := bob.prompts(); n != 0 {
		t.Errorf("bob holds %d of alice's prompts", n)
	}
	if got := carol.titles(); len(got) != 0 {
		t.Errorf("carol: %v", got)
	}
	bob.expect(0, "", []string{"search", "webhook"}, "webhook verified by HMAC", "· by alice on laptop\n")
	bob.expect(0, "", []string{"search", "--author", "alice", "webhook"}, "webhook verified by HMAC")
	bob.expect(0, "", []string{"search", "--json", "--author", "alice", "webhook"}, `"author":"alice","machine":"laptop"`)
	// Bob's own name finds his own records (none here), a stranger's nothing: the controls.
	bob.expect(0, "", []string{"search", "--author", "bob", "webhook"}, "No results")
	bob.expect(0, "", []string{"search", "--author", "carol", "webhook"}, "No results")
	desk.expect(0, "", []string{"search", "webhook"}, "webhook verified by HMAC", "· on laptop\n")
	desk.expect(0, "", []string{"search", "--author", "alice", "webhook"}, "webhook verified by HMAC")
	if out := laptop.expect(0, "", []string{"search", "webhook"}, "webhook verified by HMAC"); strings.Contains(out, " · on ") {
		t.Errorf("a record made here has a byline: %q", out)
	}
	carol.expect(0, "", []string{"search", "webhook"}, "No results")

	// After unshare, what alice records reaches bob no more; what he pulled stays.
	laptop.expect(0, "", []string{"unshare", "--team", "core", "payments-api"}, "no longer shared")
	laptop.remember("a3", "payments-api", repo, "ledger is append-only", 30)
	laptop.expect(0, "", []string{"sync"}, "sync: pushed 3")
	bob.expect(0, "", []string{"sync"})
	desk.expect(0, "", []string{"sync"}, "pulled 3")
	if got := bob.titles(); len(got) != 1 {
		t.Errorf("bob after unshare: %v", got)
	}
	if got := desk.titles(); len(got) != 3 {
		t.Errorf("desk after unshare: %v", got)
	}

	// Forgetting on the laptop removes the desk's copy at its next pull.
	ldb, err := memory.Memory{DataDir: laptop.dataDir()}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	obs, err := ldb.RecentObservations(context.Background(), "diary", 1)
	ldb.Close()
	if err != nil || len(obs) != 1 {
		t.Fatal(obs, err)
	}
	laptop.expect(0, "", []string{"forget", "--yes", fmt.Sprint(obs[0].ID)})
	laptop.expect(0, "", []string{"sync"})
	desk.expect(0, "", []string{"sync"})
	if got := desk.titles(); len(got) != 2 {
		t.Errorf("desk after the forget: %v", got)
	} else if _, ok := got["private diary entry"]; ok {
		t.Errorf("desk still holds the forgotten record: %v", got)
	}

	var st struct {
		Server      string `json:"server"`
		LastSuccess string `json:"last_success"`
		Waiting     int    `json:"waiting"`
	}
	if err := json.Unmarshal([]byte(desk.expect(0, "", []string{"sync", "status", "--json"})), &st); err != nil ||
		st.LastSuccess == "" || st.Waiting != 0 || strings.Contains(st.Server, syncPW("alice")) {
		t.Errorf("status %+v, %v", st, err)
	}

	// A wrong password: one line with the fix, no password, recorded for status; nothing
	// local changes.
	wrong := machine(t, s, db, "bob", "bobbox")
	wrong.env[envname.SyncURL] = s.SocketURL("bob", "Not-His-Pw-41", db)
	wrong.remember("b1", "pay", filepath.Join(wrong.root, "pay"), "bob's own note", 40)
	rc, _, errs := wrong.run("", "sync")
	if rc != 1 || !strings.Contains(errs, "fix: check the role") || strings.Contains(errs, "Not-His-Pw-41") || strings.Count(errs, "\n") != 1 {
		t.Errorf("wrong password: rc %d stderr %q", rc, errs)
	}
	out = wrong.expect(0, "", []string{"sync", "status"}, "last error", "waiting       3 record(s)")
	if strings.Contains(out, "Not-His-Pw-41") {
		t.Errorf("status shows the password: %s", out)
	}
}

// With no server set, nothing of sync runs and nothing is made.
func TestSyncOff(t *testing.T) {
	w := newWorld(t)
	w.expect(0, "", []string{"sync", "status"}, "sync is off")
	w.expect(0, "", []string{"sync", "status", "--json"}, `"server": ""`)
	w.expect(0, "", []string{"sync-run", "push"})
	if _, err := os.Stat(w.dataDir()); err == nil {
		t.Error("sync with no server made the data dir")
	}
	w.expect(1, "claude-mem sync: sync is off…", []string{"sync"})
	w.expect(1, "claude-mem team list: sync is off…", []string{"team", "list"})
	w.expect(2, "claude-mem sync: unexpected \"x\"\n…", []string{"sync", "x"})
	w.expect(2, "claude-mem sync: --json goes with status\n…", []string{"sync", "--json"})
	w.expect(2, "claude-mem sync-run: unexpected \"sideways\"\n…", []string{"sync-run", "sideways"})
	w.expect(2, "claude-mem share: --team is required\n…", []string{"share"})
	w.expect(2, "claude-mem team: unexpected \"join\"\n…", []string{"team", "join"})
}
