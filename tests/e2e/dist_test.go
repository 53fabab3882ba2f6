//go:build unix

package e2e

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/permit"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// maxCacheBytes bounds what Claude Code copies into its plugin cache for claude-mem.
const maxCacheBytes = 30 << 20

// distPlatforms is the Makefile's PLATFORMS.
var distPlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// One `make dist` of every platform, shared by the tests of this binary (building six
// platforms is the expensive part), removed by TestMain.
var (
	distOnce sync.Once
	distDir  string
	distErr  error
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if distDir != "" {
		os.RemoveAll(distDir)
	}
	os.Exit(code)
}

// makeIn runs make in the repository with args and env (nil: this process's environment).
// A make target that builds bin/hook must be given HOOK_BIN, and one that installs or
// uninstalls a PLUGIN_DIR: no test writes the checkout's bin/ or dist/, which a user's own
// `make install` fills (and an uninstall of that plugin would take back the user's rule).
func makeIn(env []string, args ...string) ([]byte, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	has := func(v string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, v+"=") })
	}
	switch target := args[0]; {
	case (target == "install" || target == "build") && !has("HOOK_BIN"):
		return nil, fmt.Errorf("make %s without HOOK_BIN would write the checkout's bin/hook", target)
	case (target == "install" || target == "uninstall") && !has("PLUGIN_DIR"):
		return nil, fmt.Errorf("make %s without PLUGIN_DIR would use the checkout's dist/plugin", target)
	}
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = root
	cmd.Env = env
	if env == nil {
		cmd.Env = os.Environ()
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out, nil
}

// builtDist returns the dir holding `make dist`'s archives and SHA256SUMS.
func builtDist(t *testing.T) string {
	t.Helper()
	distOnce.Do(func() {
		if distDir, distErr = os.MkdirTemp("", "claude-mem-dist-"); distErr == nil {
			_, distErr = makeIn(nil, "dist", "DIST="+distDir)
		}
	})
	if distErr != nil {
		t.Fatal(distErr)
	}
	return distDir
}

// sums reads SHA256SUMS: file name → hex digest, in file order.
func sums(t *testing.T, dir string) ([]string, map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(l, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", l)
		}
		names = append(names, name)
		m[name] = sum
	}
	return names, m
}

// archiveEntries lists an archive's entries (name → content; directories end in "/")
// and their modes.
func archiveEntries(t *testing.T, path string) (map[string][]byte, map[string]fs.FileMode) {
	t.Helper()
	data, modes := map[string][]byte{}, map[string]fs.FileMode{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data[f.Name], _ = io.ReadAll(rc)
			rc.Close()
			modes[f.Name] = f.Mode()
		}
		return data, modes
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data[h.Name], _ = io.ReadAll(tr)
		modes[h.Name] = h.FileInfo().Mode()
	}
	return data, modes
}

// payload is the list every archive must hold, below its top dir: the plugin's files as
// the repository has them (.mcp.json and skills/ only when it has them).
func payload(t *testing.T, goos string) []string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	hook := "bin/hook"
	if goos == "windows" {
		hook = "bin/hook.exe"
	}
	want := []string{"", ".claude-plugin/", ".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", "LICENSE", "README.md", "bin/", hook, "hooks.json"}
	if _, err := os.Stat(filepath.Join(root, ".mcp.json")); err == nil {
		want = append(want, ".mcp.json")
	}
	for _, f := range filesUnder(t, filepath.Join(root, "skills")) {
		want = append(want, "skills/"+filepath.ToSlash(f))
		for d := filepath.Dir("skills/" + filepath.ToSlash(f)); d != "."; d = filepath.Dir(d) {
			if !slices.Contains(want, d+"/") {
				want = append(want, d+"/")
			}
		}
	}
	slices.Sort(want)
	return want
}

// TestDistArchives: `make dist` gives one archive per platform, each listed in SHA256SUMS
// with its digest, holding exactly the plugin's files under claude-mem-<v>-<os>-<arch>/,
// the version stamped into both manifests and into `hook version`; windows runs
// bin/hook.exe. A second build of linux/amd64 is byte-identical (reproducible).
func TestDistArchives(t *testing.T) {
	dir := builtDist(t)
	names, digests := sums(t, dir)
	var version string
	for _, p := range distPlatforms {
		goos, goarch, _ := strings.Cut(p, "/")
		ext := ".tar.gz"
		if goos == "windows" {
			ext = ".zip"
		}
		var name string
		for _, n := range names {
			if strings.HasSuffix(n, "-"+goos+"-"+goarch+ext) {
				name = n
			}
		}
		if name == "" {
			t.Errorf("SHA256SUMS %v has no %s archive", names, p)
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != digests[name] {
			t.Errorf("%s: sha256 %s, SHA256SUMS says %s", name, got, digests[name])
		}
		base := strings.TrimSuffix(name, ext)
		v := strings.TrimSuffix(strings.TrimPrefix(base, "claude-mem-"), "-"+goos+"-"+goarch)
		if version == "" {
			version = v
		} else if v != version {
			t.Errorf("%s: version %q, others %q", name, v, version)
		}
		data, modes := archiveEntries(t, filepath.Join(dir, name))
		var got []string
		for n := range data {
			rel, ok := strings.CutPrefix(n, base+"/")
			if !ok && n != base+"/" {
				t.Errorf("%s: entry %s is outside %s/", name, n, base)
			}
			got = append(got, rel)
		}
		slices.Sort(got)
		if want := payload(t, goos); !slices.Equal(got, want) {
			t.Errorf("%s holds %q,\nwant exactly %q", name, got, want)
		}
		hook := base + "/bin/hook"
		if goos == "windows" {
			hook += ".exe"
		}
		if modes[hook].Perm() != 0o755 || len(data[hook]) < 1<<20 {
			t.Errorf("%s: %s mode %v, %d bytes", name, hook, modes[hook], len(data[hook]))
		}
		for _, m := range []string{"plugin.json", "marketplace.json"} {
			if !strings.Contains(string(data[base+"/.claude-plugin/"+m]), `"version": "`+version+`"`) {
				t.Errorf("%s: %s lacks version %s:\n%s", name, m, version, data[base+"/.claude-plugin/"+m])
			}
		}
		hooks := string(data[base+"/hooks.json"])
		if exe := strings.Contains(hooks, "/bin/hook.exe\""); exe != (goos == "windows") || !strings.Contains(hooks, "${CLAUDE_PLUGIN_ROOT}/bin/hook") {
			t.Errorf("%s: hooks.json runs the wrong executable:\n%s", name, hooks)
		}
		if p == "linux/amd64" {
			exe := filepath.Join(t.TempDir(), "hook")
			if err := os.WriteFile(exe, data[hook], 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(exe, "version").Output()
			if err != nil || !strings.Contains(string(out), version) {
				t.Errorf("hook version: %q %v, want %s", out, err, version)
			}
		}
	}
	if len(names) != len(distPlatforms) {
		t.Errorf("SHA256SUMS lists %d archives, want %d: %v", len(names), len(distPlatforms), names)
	}

	again := t.TempDir()
	if _, err := makeIn(nil, "dist", "DIST="+again, "PLATFORMS=linux/amd64"); err != nil {
		t.Fatal(err)
	}
	_, second := sums(t, again)
	if len(second) != 1 {
		t.Fatalf("the second build's SHA256SUMS: %v", second)
	}
	for n, sum := range second {
		if digests[n] != sum {
			t.Errorf("two builds of %s differ: %s then %s", n, digests[n], sum)
		}
	}
}

// dirSize is the bytes of the regular files under dir.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, f := range filesUnder(t, dir) {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// TestDistInstall is a user without Go: the linux/amd64 archive unpacked into a fresh
// HOME, the two `claude plugin` commands, then a session is captured, the observer runs,
// and the next session starts with the memory. Claude Code's cache copy of the plugin is
// measured: under 30 MB, and nothing but the archive's files.
func TestDistInstall(t *testing.T) {
	t.Parallel()
	cliPath(t) // skip (or fail in CI) before the expensive build
	dir := builtDist(t)
	names, _ := sums(t, dir)
	var archive string
	for _, n := range names {
		if strings.HasSuffix(n, "-linux-amd64.tar.gz") {
			archive = n
		}
	}
	if archive == "" {
		t.Fatalf("no linux-amd64 archive in %v", names)
	}
	base := strings.TrimSuffix(archive, ".tar.gz")
	p := newProductWith(t, base)
	// The README's block, as written: unpacked under ~/.local/opt of a fresh home.
	p.Plugin = filepath.Join(p.Home, ".local", "opt", base)
	p.Hook = filepath.Join(p.Plugin, "bin", "hook")
	version := strings.TrimSuffix(strings.TrimPrefix(base, "claude-mem-"), "-linux-amd64")
	p.runReadmeBlock("### Install without Go", dir, version)

	p.Mock.Handle(all(isObserver, hasEvents), mockapi.Text(observations))
	p.Mock.Handle(isObserver, mockapi.Text(summary))
	p.Mock.Handle(all(mockapi.Not(isObserver), mockapi.Not(mockapi.BodyContains(allowMarker))),
		mockapi.ToolUse("Bash", map[string]string{"command": "echo hi", "description": "say hi"}),
		mockapi.Text("done"))
	p.installHostile()
	if st, err := permit.Check(filepath.Join(p.Home, ".claude", "settings.json")); err != nil || st != permit.Allowed {
		t.Errorf("after the README's block the memory tools are %v (%v)", st, err)
	}

	cache := filepath.Join(p.Home, ".claude", "plugins", "cache", productMarket)
	size := dirSize(t, cache)
	t.Logf("Claude Code's cache of the plugin: %s, %d bytes (%.1f MB)", cache, size, float64(size)/(1<<20))
	if size == 0 || size > maxCacheBytes {
		t.Errorf("the plugin cache holds %d bytes, want 1..%d", size, maxCacheBytes)
	}
	for _, f := range filesUnder(t, cache) {
		// <version>/<file>: only the archive's files (and the CLI's own markers).
		_, rel, _ := strings.Cut(filepath.ToSlash(f), "/")
		_, rel, _ = strings.Cut(rel, "/")
		if !slices.Contains(payload(t, "linux"), rel) && !strings.HasPrefix(filepath.Base(rel), ".") {
			t.Errorf("the cache holds %s, which is not in the archive", f)
		}
	}

	_, id := p.session("please run echo hi", p.userEnv(true))
	p.waitFor("the observations stored", func() (bool, string) {
		titles := p.column(`SELECT title FROM observations ORDER BY id`)
		return len(titles) >= 2, "observations " + strings.Join(titles, " | ")
	})
	p.quiesce()
	if got := p.column(`SELECT session_id FROM events`); len(got) != 1 || got[0] != id {
		t.Errorf("captured events of sessions %q, want the one Bash event of %s", got, id)
	}
	before := len(p.userRequests())
	p.session("what do you remember?", p.userEnv(true))
	p.quiesce()
	reqs := p.userRequests()
	if len(reqs) <= before {
		t.Fatal("the next session made no request")
	}
	if sys := reqs[before].MessageText("system"); !strings.Contains(sys, obsTitle1) || !strings.Contains(sys, obsTitle2) {
		t.Errorf("the next session's first request lacks the observations:\n%s", sys)
	}
	// The memory tools, allowed by the block's last line: a session without --allowedTools
	// gets the model's search answered.
	if res := p.searchWithoutAllowedTools(strings.Fields(obsTitle1)[0]); !strings.Contains(res, obsTitle1) {
		t.Errorf("the search call's result lacks %q:\n%s", obsTitle1, res)
	}
}

// runReadmeBlock runs, line by line with sh in dir, the first sh code block under the
// README's heading, with <version> replaced: the commands a user copies, as written.
func (p *product) runReadmeBlock(heading, dir, version string) {
	t := p.t
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "\n"+heading+"\n")
	_, block, ok2 := strings.Cut(after, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("README.md has no sh block under %q", heading)
	}
	env := p.userEnv(true)
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		line = strings.ReplaceAll(line, "<version>", version)
		cmd := exec.Command("/bin/sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env.List()
		out, err := cmd.CombinedOutput()
		t.Logf("$ %s\n%s", line, out)
		if err != nil {
			t.Fatalf("the README's %q line %q: %v\n%s", heading, line, err, out)
		}
	}
}

// doctorState is the part of `hook doctor --json` these tests read.
type doctorState struct {
	OK       bool
	Findings []string
	DataDir  string `json:"data_dir"`
	Plugin   struct {
		Checked, Installed, Enabled bool
		MarketMissing               bool   `json:"marketplace_missing"`
		MarketDir                   string `json:"marketplace_dir"`
		Root                        string
		HookState                   string `json:"hook_state"`
	}
}

// doctor runs hook doctor --json as the user would from a terminal.
func (p *product) doctor(hook string) (doctorState, int) {
	t := p.t
	t.Helper()
	cmd := exec.Command(hook, "doctor", "--json")
	cmd.Dir = p.Cwd
	cmd.Env = p.userEnv(true).List()
	out, err := cmd.Output()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("%s doctor: %v", hook, err)
	}
	var d doctorState
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("%s doctor --json: %v\n%s", hook, err, out)
	}
	return d, code
}

// installEnv is the user's environment for `make install`/`make uninstall`: the sandbox
// HOME, with the Go toolchain and its caches of this process (a fresh HOME would rebuild
// everything), answering yes to allowing the memory tools.
func (p *product) installEnv() []string {
	t := p.t
	t.Helper()
	env := p.userEnv(true)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Fatal(err)
	}
	env["PATH"] = p.BinDir + ":" + filepath.Dir(goBin) + ":" + filepath.Dir(makeBin) + ":/usr/bin:/bin"
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	env["GOCACHE"], env["GOMODCACHE"], env["GOPATH"] = vals[0], vals[1], vals[2]
	env["GOFLAGS"] = os.Getenv("GOFLAGS")
	env["GOPROXY"], env["GOTOOLCHAIN"] = "off", "local" // everything is in the module cache already
	env["ALLOW_TOOLS"] = "yes"                          // install allows the memory tools (doctor's ok needs them)
	return env.List()
}

// snapshot is every file under dir with its digest.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, f := range filesUnder(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		m[f] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return m
}

func hasFinding(d doctorState, parts ...string) bool {
	return slices.ContainsFunc(d.Findings, func(f string) bool {
		for _, p := range parts {
			if !strings.Contains(f, p) {
				return false
			}
		}
		return true
	})
}

// TestInstallFromCheckout is `make install` as a developer runs it, in a throwaway HOME
// against the real CLI: Claude Code's copy is the plugin alone (measured), doctor reads
// the registry as 2.1.328 writes it. The plugin dir moves away (a moved checkout): doctor
// names the missing marketplace path and exits 1; `make install` from the new place
// fixes it. Disabled: doctor gives the enable command, which works. A different build:
// doctor says so. `make uninstall`: doctor says not installed, the data dir is untouched.
func TestInstallFromCheckout(t *testing.T) {
	t.Parallel()
	p := newProductWith(t, "checkout-a")
	cli := filepath.Join(p.BinDir, "claude")
	p.Mock.Handle(mockapi.Any, mockapi.Text("noted"))
	env := p.installEnv()
	install := func(dir string) {
		t.Helper()
		out, err := makeIn(env, "install", "PLUGIN_DIR="+dir, "HOOK_BIN="+dir+".hook", "CLAUDE="+cli)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "Successfully") {
			t.Fatalf("make install:\n%s", out)
		}
	}

	install(p.Plugin)
	if d, code := p.doctor(p.Hook); code != 0 || !d.OK || !d.Plugin.Installed || !d.Plugin.Enabled || d.Plugin.Root != p.Plugin || d.Plugin.HookState != "same" {
		t.Fatalf("after make install: exit %d %+v", code, d)
	}
	cache := filepath.Join(p.Home, ".claude", "plugins", "cache", productMarket)
	size := dirSize(t, cache)
	t.Logf("after make install, Claude Code's cache of the plugin: %d bytes (%.1f MB): %v", size, float64(size)/(1<<20), filesUnder(t, cache))
	if size == 0 || size > maxCacheBytes {
		t.Errorf("the plugin cache holds %d bytes, want 1..%d", size, maxCacheBytes)
	}
	for _, f := range filesUnder(t, cache) {
		if strings.Contains(f, "Makefile") || strings.Contains(f, "go.mod") || strings.HasSuffix(f, ".go") {
			t.Errorf("the cache holds the checkout's %s", f)
		}
	}
	// A session, so the data dir holds memory that uninstall must leave alone.
	if r := p.run([]string{"-p", "remember the blue door", "--model", "haiku"}, "", p.userEnv(true)); r.exit != 0 {
		t.Fatalf("session: exit %d\n%s", r.exit, r.stderr)
	}
	p.quiesce()

	// The checkout moves: the session loads nothing, doctor in the moved copy says why.
	moved := p.Plugin + "-moved"
	if err := os.Rename(p.Plugin, moved); err != nil {
		t.Fatal(err)
	}
	if r := p.run([]string{"plugin", "list"}, "", p.userEnv(true)); !strings.Contains(string(r.stdout), "failed to load") {
		t.Errorf("claude plugin list after the move:\n%s", r.stdout)
	}
	d, code := p.doctor(filepath.Join(moved, "bin", "hook"))
	if code != 1 || d.OK || !d.Plugin.MarketMissing || d.Plugin.MarketDir != p.Plugin ||
		!hasFinding(d, "marketplace claude-mem-go directory "+p.Plugin+" is gone", "claude plugin marketplace add "+moved) {
		t.Errorf("doctor after the move: exit %d %+v", code, d)
	}

	// make install from the new place: fixed.
	fresh := filepath.Join(p.Root, "checkout-b")
	install(fresh)
	freshHook := filepath.Join(fresh, "bin", "hook")
	if d, code := p.doctor(freshHook); code != 0 || !d.OK || d.Plugin.Root != fresh || d.Plugin.MarketMissing {
		t.Errorf("doctor after make install again: exit %d %+v", code, d)
	}

	// Disabled, then the command doctor names.
	if r := p.run([]string{"plugin", "disable", productID}, "", p.userEnv(true)); r.exit != 0 {
		t.Fatalf("plugin disable: %s", r.stderr)
	}
	d, code = p.doctor(freshHook)
	if code != 0 || d.Plugin.Enabled || !hasFinding(d, "disabled; to turn it back on, run: claude plugin enable "+productID) {
		t.Errorf("doctor when disabled: exit %d %+v", code, d)
	}
	if r := p.run(strings.Fields("plugin enable "+productID), "", p.userEnv(true)); r.exit != 0 {
		t.Fatalf("plugin enable: %s", r.stderr)
	}
	if d, code := p.doctor(freshHook); code != 0 || !d.Plugin.Enabled {
		t.Errorf("doctor after enable: exit %d %+v", code, d)
	}

	// Another build of the plugin (here: the moved copy, one byte longer) is told that
	// Claude Code runs a different binary, and how to make it run this one.
	f, err := os.OpenFile(filepath.Join(moved, "bin", "hook"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0})
	f.Close()
	d, code = p.doctor(filepath.Join(moved, "bin", "hook"))
	if code != 0 || d.Plugin.HookState != "different" || !hasFinding(d, "Claude Code runs "+freshHook+", a different build", "claude plugin marketplace add "+moved) {
		t.Errorf("doctor of another build: exit %d %+v", code, d)
	}

	// make uninstall of the plugin installed last: not installed, the permission rule and
	// its record taken back, and the memory still there.
	record := filepath.Join(p.DataDir, "permissions-added.json")
	settingsPath := filepath.Join(p.Home, ".claude", "settings.json")
	if st, err := permit.Check(settingsPath); err != nil || st != permit.Allowed {
		t.Fatalf("before uninstall the settings' rule is %s (%v), want %s", st, err, permit.Allowed)
	}
	if _, err := os.Stat(record); err != nil {
		t.Fatalf("before uninstall: %v", err)
	}
	before := snapshot(t, p.DataDir)
	delete(before, "permissions-added.json")
	if len(before) == 0 {
		t.Fatal("the data dir is empty before uninstall")
	}
	out, err := makeIn(env, "uninstall", "PLUGIN_DIR="+fresh, "CLAUDE="+cli)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `your memory (the data dir):          rm -rf "`+p.DataDir+`"`) {
		t.Errorf("make uninstall does not name the data dir %s:\n%s", p.DataDir, out)
	}
	if after := snapshot(t, p.DataDir); !maps.Equal(before, after) {
		t.Errorf("uninstall changed the memory in the data dir:\nbefore %v\nafter  %v", before, after)
	}
	if st, err := permit.Check(settingsPath); err != nil || st == permit.Allowed {
		t.Errorf("after uninstall the settings' rule is %s (%v)", st, err)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("after uninstall the rule's record %s is still there: %v", record, err)
	}
	d, code = p.doctor(freshHook)
	if code != 1 || d.Plugin.Installed || !hasFinding(d, "plugin not installed in Claude Code — run: claude plugin marketplace add "+fresh) {
		t.Errorf("doctor after uninstall: exit %d %+v", code, d)
	}
}

// TestInstallWithoutClaude: `make install` with no claude on PATH stops before building,
// saying how to get Claude Code and what to run afterwards. (TestInstallFromCheckout is
// the control, with claude present.)
func TestInstallWithoutClaude(t *testing.T) {
	t.Parallel()
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + filepath.Dir(makeBin) + ":/usr/bin:/bin"}
	out, err := makeIn(env, "install", "CLAUDE=claude-not-installed", "PLUGIN_DIR="+filepath.Join(home, "plugin"), "HOOK_BIN="+filepath.Join(home, "hook"))
	if err == nil {
		t.Fatalf("make install succeeded without claude:\n%s", out)
	}
	for _, want := range []string{"npm install -g @anthropic-ai/claude-code", "https://claude.ai/install.sh",
		"claude plugin marketplace add " + filepath.Join(home, "plugin"), "claude plugin install claude-mem@claude-mem-go"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the message lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "go build") {
		t.Errorf("make install built before checking for claude:\n%s", out)
	}
}
