// Package doctor builds the doctor report as a value: the setup, auth, settings, health,
// queue and next spawn spec that `hook doctor` prints and the viewer's health page shows.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/internal/textwrap"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/notice"
	"github.com/claude-mem/claude-mem-go/observer"
	"github.com/claude-mem/claude-mem-go/observer/prompt"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/stats"
	"github.com/claude-mem/claude-mem-go/store"
	memsync "github.com/claude-mem/claude-mem-go/sync"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// Inputs is what a report is built from: the process as values.
type Inputs struct {
	Version    string
	Hook       string // the running executable, named in findings
	PluginRoot string
	Settings   *settings.Settings
	// Memory is the data dir's memory (its DataDirErr: why the data dir cannot be used),
	// read as it is: doctor stores nothing that waits in its Journal.
	Memory    memory.Memory
	Env       settings.Env
	GOOS      string
	Home      string
	Now       func() time.Time
	Loc       *time.Location                   // the local day of costs and the budget; nil is UTC
	Lineage   []string                         // darwin: the process ancestry for the desktop-app auth rule
	FreeBytes func(dir string) (uint64, error) // journal.FreeBytes; nil: not checked
}

// Report is the doctor report as a value: the documented, stable shape of `hook doctor --json` (README: "hook doctor").
type Report struct {
	Version    string           `json:"version"`
	Hook       string           `json:"hook"`
	Command    string           `json:"command"` // how a person runs it (Command): the fixes' prefix
	DataDir    string           `json:"data_dir"`
	PluginRoot string           `json:"plugin_root"`
	OK         bool             `json:"ok"`         // no problem among the findings
	SignedOut  bool             `json:"signed_out"` // no credential at all yet: a setup step
	Findings   []string         `json:"findings"`   // the problems, then the notes (the user's choice, or harmless)
	Problems   int              `json:"problems"`   // how many of Findings, from the first, are problems
	Settings   []settings.Value `json:"settings"`
	Observer   struct {
		Enabled             bool `json:"enabled"`
		MaxConcurrentAgents int  `json:"max_concurrent_agents"`
	} `json:"observer"`
	Claude   Claude          `json:"claude"`
	Auth     Auth            `json:"auth"`
	Health   health.Health   `json:"health"`
	Queue    *Queue          `json:"queue"`
	Journal  *Journal        `json:"journal"`
	Cost     *Cost           `json:"cost"`
	Redacted *Redacted       `json:"redacted"`
	LastRun  *health.Run     `json:"last_run"`
	Spawn    *spawn.Redacted `json:"spawn_spec"`
	Plugin   Plugin          `json:"plugin"`
}

type Claude struct {
	Found  bool              `json:"found"`
	Path   string            `json:"path,omitempty"`
	Via    string            `json:"via,omitempty"`
	Error  string            `json:"error,omitempty"`
	Probed []claudebin.Probe `json:"probed,omitempty"`
}

type Auth struct {
	Usable     bool             `json:"usable"`
	Source     string           `json:"source,omitempty"`
	From       string           `json:"from,omitempty"`
	Value      auth.Secret      `json:"value,omitempty"`
	ExpiresAt  *time.Time       `json:"expires_at,omitempty"`
	Error      string           `json:"error,omitempty"`
	Candidates []auth.Candidate `json:"candidates,omitempty"`
}

// Cost is what the observer did and cost today and in the last 7 local days (hook stats).
type Cost struct {
	Today     stats.Row   `json:"today"`
	Last7Days stats.Row   `json:"last_7_days"`
	BudgetUSD float64     `json:"budget_usd"` // 0: no cap
	days      []stats.Row // the last 7 days', all projects together, newest first
}

// Redacted is how many captured values were redacted, per kind, today and in the last 7
// local days (DESIGN.md §16), and how many secrets the upgrade that redacted memory stored
// before found in it (the database and the observer's run files).
type Redacted struct {
	Today        redact.Counts `json:"today"`
	Last7Days    redact.Counts `json:"last_7_days"`
	StoredMemory redact.Counts `json:"stored_memory"`
}

// Journal is the capture journal (DESIGN.md §15): where records wait until the store
// ingests them, what waits, and the data dir's free space.
type Journal struct {
	Dir           string    `json:"dir"`
	FallbackDirs  []string  `json:"fallback_dirs"`
	Records       int       `json:"records"`
	Files         int       `json:"files"`
	Oldest        time.Time `json:"oldest,omitzero"`
	InFallback    int       `json:"in_fallback"`
	FreeBytes     *uint64   `json:"free_bytes"` // the data dir's; null when unknown
	Refused       []string  `json:"refused"`    // dirs and files not the user's alone: never read
	IngestError   string    `json:"ingest_error,omitempty"`
	IngestErrorAt time.Time `json:"ingest_error_at,omitzero"`
	Error         string    `json:"error,omitempty"`
}

type Queue struct {
	Pending    int    `json:"pending"`
	Processing int    `json:"processing"`
	Done       int    `json:"done"`
	Failed     int    `json:"failed"`
	Error      string `json:"error,omitempty"`
}

// Build gathers the report: live checks of the claude executable and the credential, the
// health the observer left, the queue, and the spawn spec the next run would use.
func Build(ctx context.Context, in Inputs) *Report {
	s := in.Settings
	r := &Report{Version: in.Version, Hook: in.Hook, Command: in.command(), DataDir: s.DataDir, PluginRoot: in.PluginRoot}
	r.Settings = append(r.Settings, s.Values...)
	r.Observer.Enabled, r.Observer.MaxConcurrentAgents = s.MaxConcurrentAgents > 0, s.MaxConcurrentAgents
	var err error
	var refused *private.Error
	if errors.As(in.Memory.DataDirErr, &refused) {
		// Nothing in a data dir another user could write is read: its finding says so.
	} else if r.Health, err = health.Load(s.DataDir); err != nil {
		r.Findings = append(r.Findings, "health.json unreadable: "+err.Error())
	}
	r.LastRun = r.Health.LastRun

	bin, binErr := observer.ClaudeStatus(in.Env, s, in.GOOS, r.Health)
	r.Claude = Claude{Found: binErr == nil, Path: bin.Path, Via: bin.Via}
	if binErr != nil {
		r.Claude.Error = binErr.Error()
		var nf *claudebin.NotFoundError
		if errors.As(binErr, &nf) {
			r.Claude.Probed = nf.Probed
		}
	}

	src, cands, authErr := auth.Resolve(ctx, observer.AuthInputs(observer.Inputs{Settings: s, Env: in.Env, GOOS: in.GOOS, Home: in.Home, Now: in.Now, Lineage: in.Lineage}))
	r.Auth = Auth{Usable: authErr == nil, Candidates: cands}
	if authErr != nil {
		r.Auth.Error = authErr.Error()
	} else {
		r.Auth.Source, r.Auth.From, r.Auth.Value = string(src.Kind), src.From, src.Value
		if !src.ExpiresAt.IsZero() {
			t := src.ExpiresAt.UTC()
			r.Auth.ExpiresAt = &t
		}
	}

	var storeErr error
	var today budget.Budget
	var strandedNotes []string // events of runs whose process is gone: requeued by the next run
	loc := in.Loc
	if loc == nil {
		loc = time.UTC // the store's day arithmetic needs a location
	}
	if db, err := in.Memory.ReadStored(); err == nil {
		if c, err := db.Counts(ctx); err == nil {
			r.Queue = &Queue{Pending: c.Pending, Processing: c.Processing, Done: c.Done, Failed: c.Failed}
		} else {
			storeErr = err
		}
		if storeErr == nil {
			r.Cost, today, storeErr = costs(ctx, db, s, in.Now(), loc)
		}
		if storeErr == nil {
			r.Redacted, storeErr = redactions(ctx, db, in.Now(), loc)
		}
		var stranded []string
		stranded, strandedNotes = strandedFindings(ctx, db, s.DataDir, in.FreeBytes)
		r.Findings = append(r.Findings, stranded...)
		db.Close()
	} else if !errors.Is(err, store.ErrNoDatabase) {
		storeErr = err
	} else {
		r.Queue = &Queue{}
	}
	if storeErr != nil {
		r.Queue = &Queue{Error: storeErr.Error()}
	}
	var js journal.Status
	if j := in.Memory.Journal; j != nil && in.Memory.DataDirErr == nil {
		js = j.Status(in.FreeBytes) // it ingests nothing: doctor shows the backlog as it is
		js.Unkept = j.Probe()
		r.Journal = journalReport(j, js, r.Health)
	}

	if r.Observer.Enabled && binErr == nil && authErr == nil {
		spec := spawn.BuildSpec(spawn.SpecInput{Settings: s, Env: in.Env, GOOS: in.GOOS, Binary: bin, Auth: src, RunID: "<next-run-id>"})
		red := spec.Redacted()
		r.Spawn = &red
	}

	// The findings are the lines SessionStart shows, with doctor's live auth check standing in
	// for a failure no run has recorded yet, then what only doctor can see.
	seen := r.Health
	var noAuth *auth.Error
	signedOut := r.Observer.Enabled && errors.As(authErr, &noAuth) && noAuth.SignedOut()
	switch {
	case signedOut:
		// Not signed in yet is a setup step, not a failure: said as one, with what to do.
		seen.Auth = health.Auth{State: health.StateUnknown}
	case r.Observer.Enabled && authErr != nil && seen.Auth.State != health.StateFailed:
		seen.Auth = health.Auth{State: health.StateFailed, Source: observer.AuthSourceName(authErr, s.AuthSource), Reason: authErr.Error()}
	}
	ni := notice.Inputs{
		Hook: r.Command, ObserverEnabled: r.Observer.Enabled, Binary: binErr,
		Health: seen, SettingsErrors: s.Errors, StoreErr: storeErr, Budget: today,
		Now: in.Now(), Journal: js, DataDir: s.DataDir,
	}
	// Every notice is a problem but the budget's: a cap the user set, reached, is the cap
	// working (nothing is lost), said as a note.
	var notes []string
	if b := ni.Budget; r.Observer.Enabled && b.Reached() {
		notes = append(notes, notice.BudgetReached(b.Spent, b.Limit, b.Until, r.Command))
		ni.Budget = budget.Budget{}
	}
	lines := notice.Collect(ni)
	if signedOut {
		lines = append(lines, "claude-mem: not signed in yet — the observer needs a credential to turn sessions into observations "+
			"(capture, context and search work meanwhile, and nothing is lost): run `claude` and log in with /login, or set "+
			"ANTHROPIC_API_KEY, or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`; then run: "+r.Command+" doctor --retry")
	}
	r.Findings = append(lines, r.Findings...)
	for _, err := range js.Refused {
		// Nothing of the user's is read from it or written to it: the other places keep
		// the records, so this is a note, said once here and never in the log.
		notes = append(notes, refusedFinding(err))
	}
	if !r.Observer.Enabled {
		notes = append(notes, "observer off (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0): capture, context and search keep working")
	}
	if !s.RedactSecrets {
		notes = append(notes, "secrets in captured content are stored as is: "+envname.RedactSecrets+" is false (set it to true, or remove it, to redact them again)")
	}
	if in.Now().Before(r.Health.PausedUntil) {
		r.Findings = append(r.Findings, fmt.Sprintf("observer paused until %s (%s); to clear it, run: %s doctor --retry", r.Health.PausedUntil.UTC().Format(time.RFC3339), r.Health.PauseReason, r.Command))
	}
	notes = append(notes, strandedNotes...)
	if r.Queue != nil && r.Queue.Failed > 0 {
		notes = append(notes, fmt.Sprintf("%d events failed 3 observer runs; they are kept", r.Queue.Failed))
	}
	if r.Cost != nil {
		r.Findings = append(r.Findings, unusableFindings(r.Cost.days, in.Now().In(loc).Format(time.DateOnly), r.Command)...)
	}
	plugin, pluginFindings, pluginFailed := checkPlugin(in)
	r.Plugin = plugin
	if pluginFailed || plugin.HookState == "missing" { // no bin/hook: Claude Code runs nothing
		r.Findings = append(r.Findings, pluginFindings...)
	} else {
		notes = append(notes, pluginFindings...)
	}
	if s.SyncURL != "" {
		problems, syncNotes := memsync.Findings(r.Health.Sync, loc)
		r.Findings = append(r.Findings, problems...)
		notes = append(notes, syncNotes...)
		if r.Health.Sync == nil {
			notes = append(notes, fmt.Sprintf("sync with %s has not run yet; to run it now: %s sync", settings.ShownURL(s.SyncURL), r.Command))
		}
	}
	r.SignedOut = signedOut
	r.Problems = len(r.Findings)
	r.OK = r.Problems == 0
	r.Findings = append(r.Findings, notes...)
	if r.Findings == nil {
		r.Findings = []string{} // `"findings": []`, never null, in --json
	}
	r.scrub()
	return r
}

// refusedFinding is the note for a journal dir or file that is not the user's alone,
// with what makes it so: the user's own is chmod'ed or removed (private.Error's fix);
// another user's (a /tmp dir made first under the user's name) only its owner or root
// can remove.
func refusedFinding(err error) string {
	fix := "remove it, or make it yours alone: chmod go-w, chown"
	var pe *private.Error
	if errors.As(err, &pe) {
		fix = "run: " + pe.Fix
		if strings.HasPrefix(pe.Fix, "move ") { // a dir not the user's: the data dir's fix says move it
			fix = "it is another user's: its owner or root can remove it, run: rm -r " + pe.Path
		}
	}
	return "journal: " + err.Error() + "; nothing is read from it or written to it, records wait in the other places; " + fix
}

// scrub cleans the report's free-text fields (reasons quote errors, a child's output, a
// pasted token), so a page rendering the value (the viewer) shows no secret either; Render
// and JSON scrub their whole output on top.
func (r *Report) scrub() {
	known := r.Auth.Value.Reveal()
	sc := func(p *string) { *p = redact.Scrub(*p, known) }
	for i := range r.Findings {
		sc(&r.Findings[i])
	}
	for i := range r.Settings {
		sc(&r.Settings[i].Value)
		sc(&r.Settings[i].Error)
	}
	for i := range r.Auth.Candidates {
		sc(&r.Auth.Candidates[i].Reason)
	}
	for i := range r.Health.Settings {
		sc(&r.Health.Settings[i])
	}
	for _, p := range []*string{&r.Claude.Error, &r.Auth.Error, &r.Health.Auth.Reason, &r.Health.Setup.Reason, &r.Health.PauseReason} {
		sc(p)
	}
	if r.Queue != nil {
		sc(&r.Queue.Error)
	}
	if r.Journal != nil {
		sc(&r.Journal.IngestError)
		sc(&r.Journal.Error)
	}
	if r.LastRun != nil {
		run := *r.LastRun // shared with r.Health.LastRun: copied, not changed in place
		sc(&run.Reason)
		r.LastRun = &run
		r.Health.LastRun = &run
	}
}

// journalReport is the report's journal object.
func journalReport(j *journal.Journal, st journal.Status, h health.Health) *Journal {
	out := &Journal{
		Dir: j.Dir, FallbackDirs: j.Fallbacks, Records: st.Records, Files: st.Files, Oldest: st.Oldest,
		InFallback: st.InFallback, IngestError: h.IngestError, IngestErrorAt: h.IngestErrorAt,
	}
	if out.FallbackDirs == nil {
		out.FallbackDirs = []string{}
	}
	out.Refused = []string{}
	for _, err := range st.Refused {
		out.Refused = append(out.Refused, err.Error())
	}
	if st.Err != nil {
		out.Error = st.Err.Error()
	}
	if st.FreeKnown {
		out.FreeBytes = &st.Free
	}
	return out
}

// costs reads today's and the last 7 days' totals and today's budget.
func costs(ctx context.Context, db *store.DB, s *settings.Settings, now time.Time, loc *time.Location) (*Cost, budget.Budget, error) {
	c := &Cost{BudgetUSD: s.DailyBudgetUSD}
	today, err := stats.Build(ctx, db, now, loc, 1, "", s.DailyBudgetUSD)
	if err != nil {
		return nil, budget.Budget{}, err
	}
	week, err := stats.Build(ctx, db, now, loc, 7, "", s.DailyBudgetUSD)
	if err != nil {
		return nil, budget.Budget{}, err
	}
	c.Today, c.Last7Days, c.days = today.Total, week.Total, week.ByDay()
	b, err := budget.Today(ctx, db, s.DailyBudgetUSD, now, loc)
	return c, b, err
}

// redactions reads today's and the last 7 days' redaction counts per kind, all projects.
func redactions(ctx context.Context, db *store.DB, now time.Time, loc *time.Location) (*Redacted, error) {
	start, end := budget.Day(now, loc)
	today, week, next := start.Format(time.DateOnly), start.AddDate(0, 0, -6).Format(time.DateOnly), end.Format(time.DateOnly)
	t, err := db.RedactionsByKind(ctx, today, next, "")
	if err != nil {
		return nil, err
	}
	w, err := db.RedactionsByKind(ctx, week, next, "")
	if err != nil {
		return nil, err
	}
	m, err := db.StoredRedactions(ctx)
	if err != nil {
		return nil, err
	}
	return &Redacted{Today: t, Last7Days: w, StoredMemory: m}, nil
}

// PluginRoot is CLAUDE_PLUGIN_ROOT inside a hook; run from a terminal, it is the directory
// above the executable's (bin/hook) when that holds the plugin manifest.
func PluginRoot(env settings.Env, exeDir string) string {
	if r := env.Get(envname.PluginRoot); r != "" {
		return r
	}
	root := filepath.Dir(exeDir)
	if _, err := os.Stat(filepath.Join(root, ".claude-plugin", "plugin.json")); err == nil {
		return root
	}
	return ""
}

// Render writes the report for a person, scrubbed as a whole (see scrubbed): a summary
// (the state, each finding with its fix, one line per part), or with verbose everything,
// the settings, the places probed and the next spawn spec too. Findings wrap at width
// columns (the terminal's).
func Render(w io.Writer, r *Report, verbose bool, width int) {
	var b strings.Builder
	render(&b, r, verbose, width)
	io.WriteString(w, printable.Lines(scrubbed(b.String(), r)))
}

// JSON writes the report as indented JSON, scrubbed as a whole (see scrubbed).
func JSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(printable.JSON([]byte(scrubbed(string(b), r))), '\n'))
	return err
}

// scrubbed is the report's text with every secret shape and the resolved credential
// scrubbed: a reason may quote a child's output or a pasted token, and scrubbing the output
// rather than each field means no field can be forgotten.
func scrubbed(text string, r *Report) string { return redact.Scrub(text, r.Auth.Value.Reveal()) }

// state is the report's first line's verdict.
func (r *Report) state() string {
	switch {
	case r.OK:
		return "ok"
	case r.SignedOut && r.Problems == 1:
		return "not signed in yet: one setup step left"
	}
	return "PROBLEMS FOUND"
}

// Finding markers: a problem (the verdict is not ok while there is one) and a note.
const (
	problemMark = "!"
	noteMark    = "·"
)

func render(w io.Writer, r *Report, verbose bool, width int) {
	status := r.state()
	fmt.Fprintf(w, "claude-mem %s — %s\n\n", r.Version, status)
	for i, f := range r.Findings {
		mark := problemMark
		if i >= r.Problems {
			mark = noteMark
		}
		// Scrubbed before it is wrapped: a secret broken across lines would not be found.
		io.WriteString(w, wrapFinding(mark, scrubbed(f, r), width))
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "hook         %s\ndata dir     %s\nplugin root  %s\n", r.Hook, r.DataDir, orNone(r.PluginRoot))
	fmt.Fprintf(w, "installed    %s\n", r.Plugin.summary())
	fmt.Fprintf(w, "observer     %s\n", map[bool]string{true: fmt.Sprintf("on, at most %d at once", r.Observer.MaxConcurrentAgents), false: "off (search-only mode)"}[r.Observer.Enabled])
	if r.Claude.Found {
		fmt.Fprintf(w, "claude       %s (via %s)\n", r.Claude.Path, r.Claude.Via)
	} else if len(r.Claude.Probed) > 0 && !verbose {
		fmt.Fprintf(w, "claude       not found in %d places (--verbose lists them)\n", len(r.Claude.Probed))
	} else if len(r.Claude.Probed) > 0 {
		fmt.Fprintln(w, "claude       not found; probed, in order:")
		for _, pr := range r.Claude.Probed {
			fmt.Fprintf(w, "               %s: %s\n", pr.Path, pr.Reason)
		}
	} else {
		fmt.Fprintf(w, "claude       not usable: %s\n", r.Claude.Error)
	}
	if r.Auth.Usable {
		exp := "no expiry"
		if r.Auth.ExpiresAt != nil {
			exp = "expires " + r.Auth.ExpiresAt.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "auth         %s from %s, %s (%s)\n", r.Auth.Source, r.Auth.From, r.Auth.Value, exp)
	} else {
		fmt.Fprintf(w, "auth         no usable source: %s\n", r.Auth.Error)
	}
	fmt.Fprintf(w, "health       auth %s, setup %s\n", orNone(r.Health.Auth.State), orNone(r.Health.Setup.State))
	if r.Queue != nil {
		if r.Queue.Error != "" {
			fmt.Fprintf(w, "events       unavailable: %s\n", r.Queue.Error)
		} else {
			fmt.Fprintf(w, "events       %d pending, %d processing, %d done, %d failed\n", r.Queue.Pending, r.Queue.Processing, r.Queue.Done, r.Queue.Failed)
		}
	}
	if j := r.Journal; j != nil {
		fmt.Fprintf(w, "journal      %s\n", j.line())
		if verbose {
			fmt.Fprintf(w, "             fallback: %s\n", strings.Join(j.FallbackDirs, ", "))
		}
	}
	if r.Cost != nil {
		budget := "no daily budget"
		if r.Cost.BudgetUSD > 0 {
			budget = fmt.Sprintf("daily budget $%.2f", r.Cost.BudgetUSD)
		}
		fmt.Fprintf(w, "cost today   %s (%s)\ncost 7 days  %s\n", r.Cost.Today.Line(), budget, r.Cost.Last7Days.Line())
	}
	if r.Redacted != nil {
		fmt.Fprintf(w, "redacted     today %s, 7 days %s\n", countsLine(r.Redacted.Today), countsLine(r.Redacted.Last7Days))
		if m := r.Redacted.StoredMemory; m.Total() > 0 {
			fmt.Fprintf(w, "             and %s in memory stored before (redacted by the upgrade)\n", countsLine(m))
		}
	}
	if r.LastRun != nil {
		fmt.Fprintf(w, "last run     %s at %s: %s %s\n", r.LastRun.ID, r.LastRun.Time.UTC().Format(time.RFC3339), r.LastRun.Outcome, r.LastRun.Reason)
	}
	if !verbose {
		fmt.Fprintf(w, "settings     %s\n\nMore (every setting, the places probed, the observer's spawn spec): %s doctor --verbose\n", settingsLine(r.Settings), r.Command)
		return
	}
	fmt.Fprintln(w, "\nsettings")
	for _, v := range r.Settings {
		line := fmt.Sprintf("  %-34s %-22q %s", v.Key, v.Value, v.Origin)
		if v.Error != "" {
			line += "  ERROR: " + v.Error
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	if r.Spawn != nil {
		b, _ := json.MarshalIndent(r.Spawn, "  ", "  ")
		fmt.Fprintf(w, "\nnext observer spawn (redacted)\n  %s\n", b)
	}
}

// settingsLine is the summary's settings: those not at their default, and any error.
func settingsLine(vs []settings.Value) string {
	var set []string
	errs := 0
	for _, v := range vs {
		if v.Error != "" {
			errs++
		}
		if v.Origin != settings.FromDefault {
			set = append(set, v.Key+"="+v.Value+" ("+string(v.Origin)+")")
		}
	}
	out := "all defaults"
	if len(set) > 0 {
		out = strings.Join(set, ", ")
	}
	if errs > 0 {
		out += fmt.Sprintf("; %d with an error", errs)
	}
	return out
}

// strandedFindings says what waits in observer runs whose process is gone: answers the
// store could not take (a full disk names itself), problems, and events the next run
// requeues, a note.
func strandedFindings(ctx context.Context, db *store.DB, dataDir string, free func(string) (uint64, error)) (problems, notes []string) {
	runs, err := observer.StrandedRuns(ctx, db, dataDir, nil)
	if err != nil {
		return []string{"the observer's claimed runs are unreadable: " + err.Error()}, nil
	}
	answered, left := 0, 0
	for _, r := range runs {
		if r.Answered {
			answered += r.Events
		} else {
			left += r.Events
		}
	}
	if answered > 0 {
		why := "the next observer run or SessionStart stores them"
		if free != nil {
			if n, err := free(dataDir); err == nil && n < journal.LowSpace {
				why = fmt.Sprintf("disk full (%d MiB free in %s); once there is space, the next observer run or SessionStart stores them", n>>20, dataDir)
			}
		}
		problems = append(problems, fmt.Sprintf("%d events' answers wait to be stored: %s", answered, why))
	}
	if left > 0 {
		notes = append(notes, fmt.Sprintf("%d events wait in observer runs whose process is gone; the next SessionStart or observer run requeues them", left))
	}
	return problems, notes
}

// unusableFindings names each day whose unusable answers passed stats.MaxUnusableRate, with the
// reasons and what to do about them.
func unusableFindings(days []stats.Row, today, hook string) []string {
	var out []string
	for _, d := range days {
		rate := d.UnusableRate()
		if rate <= stats.MaxUnusableRate {
			continue
		}
		when := "on " + d.Day
		if d.Day == today {
			when = "today"
		}
		reasons := d.Reasons[vocab.VerdictUnusable]
		fix := "their events are retried, then kept as failed after 3 runs; `" + hook + " stats` shows the reasons per day"
		switch {
		case reasons[string(prompt.ReasonTruncated)] > 0:
			fix += "; truncated: single events cut at the output limit, so the model's output limit (CLAUDE_CODE_MAX_OUTPUT_TOKENS) is too low for them"
		case reasons[string(prompt.ReasonProseOnly)]+reasons[string(prompt.ReasonEmpty)] > 0:
			fix += "; prose_only or empty: the model does not answer in the observer's format, set " + envname.Model + " to one that does"
		}
		out = append(out, fmt.Sprintf("%d of %d observer answers %s were unusable (%.0f%%): %s; %s",
			d.Answers[vocab.VerdictUnusable], d.Answered(), when, 100*rate, stats.CountsText(reasons), fix))
	}
	return out
}

// countsLine is "3 (github=2 jwt=1)", or "0".
func countsLine(c redact.Counts) string {
	if c.Total() == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", c.Total(), c)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// line is the journal's one-line state for the human report.
func (j *Journal) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", j.Dir)
	if j.Records == 0 {
		b.WriteString("nothing waiting")
	} else {
		fmt.Fprintf(&b, "%d records waiting in %d files since %s", j.Records, j.Files, j.Oldest.UTC().Format(time.RFC3339))
		if j.InFallback > 0 {
			fmt.Fprintf(&b, " (%d in a fallback dir)", j.InFallback)
		}
	}
	if j.FreeBytes != nil {
		fmt.Fprintf(&b, "; %d MiB free", *j.FreeBytes>>20)
	}
	if j.IngestError != "" {
		fmt.Fprintf(&b, "; ingestion failing since %s: %s", j.IngestErrorAt.UTC().Format(time.RFC3339), j.IngestError)
	}
	if j.Error != "" {
		fmt.Fprintf(&b, "; unreadable: %s", j.Error)
	}
	return b.String()
}

// runPrefix introduces a finding's command: what follows it to the end is one command.
const runPrefix = "run: "

// wrapFinding is one finding as the report prints it: "  <mark> " and its text wrapped at
// width (continued under the text), and the command after a final "run: " on a line of
// its own, indented under the text, so it can be copied whole.
func wrapFinding(mark, f string, width int) string {
	text, cmd := f, ""
	if i := strings.LastIndex(f, runPrefix); i >= 0 && !strings.Contains(f[i:], "; ") {
		text, cmd = strings.TrimRight(f[:i], " ")+" run:", f[i+len(runPrefix):]
	}
	const indent = "    "
	out := textwrap.Wrap(text, width, "  "+mark+" ", indent)
	if cmd != "" {
		out += indent + "  " + cmd + "\n"
	}
	return out
}
