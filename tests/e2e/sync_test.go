//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/sync/server"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// syncMachine is one of a person's machines: the product installed, its project a checkout
// of one remote, syncing as person through URL with the password in PGPASSWORD (libpq's
// convention: on no argv).
type syncMachine struct {
	*product
	url, password, name string
}

func newSyncMachine(t *testing.T, url, password, name string) *syncMachine {
	p := newProduct(t)
	// A checkout named as its repository, as `git clone` names it.
	p.Cwd = filepath.Join(p.Root, "payments-api")
	testkit.WriteFile(t, filepath.Join(p.Cwd, ".git", "config"), "[remote \"origin\"]\n\turl = git@github.com:acme/payments-api.git\n", 0o644)
	return &syncMachine{product: p, url: url, password: password, name: name}
}

func (m *syncMachine) env() settings.Env {
	e := m.userEnv(true)
	e[envname.SyncURL], e["PGPASSWORD"], e[envname.Machine] = m.url, m.password, m.name
	return e
}

// hook runs bin/hook with args in the project as the person, and returns stdout.
func (m *syncMachine) hook(args ...string) string {
	m.t.Helper()
	cmd := exec.Command(m.Hook, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = m.Cwd, m.env().List(), nil
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		m.t.Fatalf("hook %v: %v\nstdout: %s\nstderr: %s", args, err, out, errb.String())
	}
	if strings.Contains(string(out)+errb.String(), m.password) {
		m.t.Fatalf("hook %v shows the password", args)
	}
	return string(out)
}

// One person, two machines, one real server: a real `claude -p` session on the laptop is
// observed and pushed; the desk's pull brings it, its next SessionStart context holds it,
// search finds it there, and forgetting it on the laptop removes
// it from the desk after the next pull.
func TestSyncTwoMachines(t *testing.T) {
	t.Parallel()
	srv := pgtest.Shared(t)
	db := srv.NewDB(t)
	// Roles are the cluster's, not a database's: TestSyncTeam, in parallel, has its alice.
	srv.CreatePerson(t, "dana", "Dana-pg-2e1f")

	laptop := newSyncMachine(t, srv.SocketURL("dana", "", db), "Dana-pg-2e1f", "laptop")
	desk := newSyncMachine(t, srv.SocketURL("dana", "", db), "Dana-pg-2e1f", "desk")
	admin := &syncMachine{product: laptop.product, url: srv.DSN(db), name: "admin", password: "unused-admin-pw-7d"}
	if out := admin.hook("sync", "init"); !strings.Contains(out, "(installed)") {
		t.Fatalf("sync init: %q", out)
	}
	srv.Exec(t, db, "GRANT "+server.UserRole+" TO dana")

	laptop.Mock.Handle(all(isObserver, hasEvents, isFinal), mockapi.Text(observations+summary))
	laptop.Mock.Handle(all(isObserver, hasEvents), mockapi.Text(observations))
	laptop.Mock.Handle(all(isObserver, isFinal), mockapi.Text(summary))
	laptop.Mock.Handle(mockapi.Not(isObserver),
		mockapi.ToolUse("Bash", map[string]string{"command": "echo hi", "description": "say hi"}), mockapi.Text("done"))
	desk.Mock.Handle(isObserver, mockapi.Text("no observations"))
	desk.Mock.Handle(mockapi.Not(isObserver), mockapi.Text("done"))
	laptop.install()
	desk.install()

	laptop.session("please run echo hi", laptop.env())
	laptop.waitFor("2 observations stored on the laptop", func() (bool, string) {
		titles := laptop.column(`SELECT title FROM observations`)
		return len(titles) >= 2, strings.Join(titles, " | ")
	})
	laptop.quiesce() // the detached pushes after the observer runs and SessionEnd
	laptop.hook("sync")
	var st struct {
		LastSuccess string `json:"last_success"`
		Waiting     int    `json:"waiting"`
		Held        int    `json:"held"`
	}
	if err := json.Unmarshal([]byte(laptop.hook("sync", "status", "--json")), &st); err != nil || st.LastSuccess == "" || st.Waiting != 0 {
		t.Fatalf("laptop's status %+v, %v", st, err)
	}

	// The desk's first session pulls after its SessionStart (detached); its next
	// SessionStart context holds the laptop's observations.
	desk.session("hello", desk.env())
	desk.quiesce()
	before := len(desk.userRequests())
	desk.session("what do you remember?", desk.env())
	desk.quiesce()
	sys := desk.userRequests()[before].MessageText("system")
	for _, title := range []string{obsTitle1, obsTitle2} {
		if !strings.Contains(sys, title) {
			t.Errorf("the desk's SessionStart context lacks %q:\n%s", title, sys)
		}
	}
	// Marked with the laptop: the session's heading says where it was made.
	if !strings.Contains(sys, ", on laptop)\n") {
		t.Errorf("the desk's context does not say the laptop made it:\n%s", sys)
	}
	if out := desk.hook("search", obsTitle1); !strings.Contains(out, obsTitle1) || !strings.Contains(out, "· on laptop\n") {
		t.Errorf("search on the desk: %s", out)
	}

	// Forget on the laptop; the desk's next pull removes its copy.
	ids := laptop.column(`SELECT id FROM observations WHERE title = ?`, obsTitle1)
	if len(ids) != 1 {
		t.Fatalf("laptop ids %v", ids)
	}
	laptop.hook("forget", "--yes", ids[0])
	laptop.hook("sync")
	desk.hook("sync")
	if got := desk.column(`SELECT title FROM observations WHERE title = ?`, obsTitle1); len(got) != 0 {
		t.Errorf("the desk still holds the forgotten observation")
	}
	if got := desk.column(`SELECT title FROM observations WHERE title = ?`, obsTitle2); len(got) != 1 {
		t.Errorf("the desk lost the observation that was not forgotten (the control): %v", got)
	}
	if out := desk.hook("search", "--json", obsTitle1); strings.Contains(out, obsTitle1) {
		t.Errorf("search on the desk still finds the forgotten observation: %s", out)
	}
	for _, m := range []*syncMachine{laptop, desk} {
		if b, err := os.ReadFile(filepath.Join(m.DataDir, "logs", "hook.log")); err == nil && strings.Contains(string(b), m.password) {
			t.Errorf("%s's log holds the password", m.name)
		}
	}
}

// A team on one real server: alice (laptop) shares payments-api with team core (alice,
// bob); bob's next SessionStart in his own checkout of the remote holds her observations;
// carol, in no team, gets none; alice's private project and her
// prompts reach neither; after unshare, her new records reach bob no more.
func TestSyncTeam(t *testing.T) {
	t.Parallel()
	srv := pgtest.Shared(t)
	db := srv.NewDB(t)
	people := map[string]string{"alice": "Alice-pg-77c0", "bob": "Bob-pg-41aa", "carol": "Carol-pg-9e02"}
	for p, pw := range people {
		srv.CreatePerson(t, p, pw)
	}
	alice := newSyncMachine(t, srv.SocketURL("alice", "", db), people["alice"], "laptop")
	bob := newSyncMachine(t, srv.SocketURL("bob", "", db), people["bob"], "bobbox")
	carol := newSyncMachine(t, srv.SocketURL("carol", "", db), people["carol"], "carolbox")
	admin := &syncMachine{product: alice.product, url: srv.DSN(db), name: "admin", password: "unused-admin-pw-7d"}
	admin.hook("sync", "init")
	for p := range people {
		srv.Exec(t, db, "GRANT "+server.UserRole+" TO "+p)
	}
	srv.Exec(t, db, "GRANT "+server.AdminRole+" TO alice")

	const private = "E2E-PRIVATE diary entry"
	alice.Mock.Handle(all(isObserver, hasEvents, isFinal), mockapi.Text(observations+summary))
	alice.Mock.Handle(all(isObserver, hasEvents), mockapi.Text(observations))
	alice.Mock.Handle(all(isObserver, isFinal), mockapi.Text(summary))
	alice.Mock.Handle(mockapi.Not(isObserver),
		mockapi.ToolUse("Bash", map[string]string{"command": "echo hi", "description": "say hi"}), mockapi.Text("done"))
	for _, m := range []*syncMachine{bob, carol} {
		m.Mock.Handle(isObserver, mockapi.Text("no observations"))
		m.Mock.Handle(mockapi.Not(isObserver), mockapi.Text("done"))
	}
	for _, m := range []*syncMachine{alice, bob, carol} {
		m.install()
	}
	alice.hook("team", "create", "core")
	alice.hook("team", "add", "core", "alice")
	alice.hook("team", "add", "core", "bob")
	alice.hook("share", "--team", "core")
	alice.session("please run echo hi in payments", alice.env())
	alice.waitFor("2 observations stored", func() (bool, string) {
		titles := alice.column(`SELECT title FROM observations`)
		return len(titles) >= 2, strings.Join(titles, " | ")
	})
	alice.quiesce()
	// Her private project: another checkout, never shared.
	repo := alice.Cwd
	alice.Cwd = filepath.Join(alice.Root, "diary")
	if err := os.MkdirAll(alice.Cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	alice.Mock.Handle(all(isObserver, hasEvents), mockapi.Text(strings.ReplaceAll(observations, obsTitle1, private)))
	alice.session("please run echo hi in my diary", alice.env())
	alice.quiesce()
	alice.Cwd = repo
	alice.hook("sync")

	context := func(m *syncMachine) string {
		m.t.Helper()
		m.session("hello", m.env()) // its SessionStart pulls, detached
		m.quiesce()
		before := len(m.userRequests())
		m.session("what do you remember?", m.env())
		m.quiesce()
		return m.userRequests()[before].MessageText("system")
	}
	sys := context(bob)
	if !strings.Contains(sys, obsTitle1) || !strings.Contains(sys, ", by alice on "+alice.name+")\n") {
		t.Errorf("bob's SessionStart context lacks alice's observation, marked with her name:\n%s", sys)
	}
	if out := bob.hook("search", "--author", "alice", obsTitle1); !strings.Contains(out, obsTitle1) || !strings.Contains(out, "· by alice on "+alice.name) {
		t.Errorf("bob's search --author alice: %s", out)
	}
	if strings.Contains(sys, private) || strings.Contains(sys, "please run echo hi") {
		t.Errorf("bob's context holds alice's private project or her prompt:\n%s", sys)
	}
	if n := bob.column(`SELECT count(*) FROM prompts WHERE text LIKE 'please run%'`); n[0] != "0" {
		t.Errorf("bob's memory holds %s of alice's prompts", n[0])
	}
	if got := bob.column(`SELECT count(*) FROM observations WHERE title = ?`, private); got[0] != "0" {
		t.Errorf("bob holds alice's private observation")
	}
	if sys := context(carol); strings.Contains(sys, obsTitle1) || strings.Contains(sys, private) {
		t.Errorf("carol's context holds alice's records:\n%s", sys)
	}
	if got := carol.column(`SELECT count(*) FROM observations`); got[0] != "0" {
		t.Errorf("carol holds %s observations", got[0])
	}

	// After unshare, what alice records reaches bob no more.
	alice.hook("unshare", "--team", "core")
	const later = "E2E-LATER after unshare"
	alice.Mock.Handle(all(isObserver, hasEvents), mockapi.Text(strings.ReplaceAll(observations, obsTitle1, later)))
	alice.session("please run echo hi again", alice.env())
	alice.quiesce()
	alice.hook("sync")
	bob.hook("sync")
	if got := bob.column(`SELECT count(*) FROM observations WHERE title = ?`, later); got[0] != "0" {
		t.Errorf("bob got alice's record made after unshare")
	}
	if got := bob.column(`SELECT count(*) FROM observations WHERE title = ?`, obsTitle1); got[0] != "1" {
		t.Errorf("bob lost what he pulled before the unshare (it stays): %s", got[0])
	}
}
