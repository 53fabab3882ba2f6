package archive

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/store"
)

var (
	exportedAt = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	stampLine  = regexp.MustCompile(`"exported_at":"[^"]*"`)
)

func export(t *testing.T, db *store.DB, f store.ExportFilter, now time.Time) (string, Counts) {
	t.Helper()
	var buf bytes.Buffer
	c, err := Export(context.Background(), db, &buf, f, "v-test", now)
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), c
}

func TestExportShape(t *testing.T) {
	db, _ := memtest.Open(t)
	memtest.Fill(t, db)
	out, c := export(t, db, store.ExportFilter{}, exportedAt)
	if c != (Counts{Sessions: 4, Prompts: 2, Observations: 4, Summaries: 1}) {
		t.Errorf("counts %+v", c)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 12 {
		t.Fatalf("%d lines, want 12:\n%s", len(lines), out)
	}
	if want := `{"kind":"header","format":1,"product":"claude-mem-go","version":"v-test","exported_at":"2026-12-01T09:00:00Z"}`; lines[0] != want {
		t.Errorf("header %s\nwant   %s", lines[0], want)
	}
	kinds := regexp.MustCompile(`^\{"kind":"([a-z]+)"`)
	var got []string
	for _, l := range lines[1:] {
		got = append(got, kinds.FindStringSubmatch(l)[1])
	}
	if strings.Join(got, ",") != "session,session,session,session,prompt,prompt,observation,observation,observation,observation,summary" {
		t.Errorf("kinds in order: %v", got)
	}
	if want := `{"kind":"observation","session":"s1","project":"web","at":"2026-11-30T10:00:04Z","type":"feature","title":"Zebrafish validator checks login emails","subtitle":"","narrative":"The zebrafish rule <b>&</b> \"quotes\".","facts":["emails are checked","ünïcode ✓"],"concepts":[],"files_read":[],"files_modified":["src/login.go"]}`; lines[7] != want {
		t.Errorf("observation line\n%s\nwant\n%s", lines[7], want)
	}
	if want := `{"kind":"session","id":"s1","project":"web","cwd":"/work/web","started_at":"2026-11-30T10:00:00Z","ended_at":"2026-11-30T10:00:07Z"}`; lines[1] != want {
		t.Errorf("session line\n%s\nwant\n%s", lines[1], want)
	}
	// A project and a time select rows; the sessions are those rows' and the project's
	// started since (s4, which has no rows).
	out, c = export(t, db, store.ExportFilter{Project: "web", Since: memtest.At(5)}, exportedAt)
	if c != (Counts{Sessions: 3, Prompts: 1, Observations: 2, Summaries: 1}) {
		t.Errorf("web since +5s: counts %+v\n%s", c, out)
	}
	if strings.Contains(out, "Zebrafish") || strings.Contains(out, "API limiter") || !strings.Contains(out, "Quokka") {
		t.Errorf("web since +5s exported the wrong observations:\n%s", out)
	}
}

// Export, import into an empty database, export again: the same bytes apart from the
// header's time. Importing the same file again adds nothing.
func TestRoundTripAndIdempotence(t *testing.T) {
	ctx := context.Background()
	src, _ := memtest.Open(t)
	memtest.Fill(t, src)
	first, _ := export(t, src, store.ExportFilter{}, exportedAt)

	dst, _ := memtest.Open(t)
	res, err := Import(ctx, dst, strings.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	want := store.ImportResult{Sessions: store.ImportCount{Added: 4}, Prompts: store.ImportCount{Added: 2},
		Observations: store.ImportCount{Added: 4}, Summaries: store.ImportCount{Added: 1}}
	if res != want {
		t.Errorf("first import %+v, want %+v", res, want)
	}
	second, _ := export(t, dst, store.ExportFilter{}, exportedAt.Add(time.Hour))
	if first == second {
		t.Fatal("control: the header time did not change")
	}
	if a, b := stampLine.ReplaceAllString(first, ""), stampLine.ReplaceAllString(second, ""); a != b {
		t.Errorf("export after import differs:\n%s\nwant\n%s", b, a)
	}
	if hits, err := dst.Search(ctx, "zebrafish", "", 5); err != nil || len(hits) == 0 {
		t.Errorf("imported memory not searchable: %d hits, %v", len(hits), err)
	}

	again, err := Import(ctx, dst, strings.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	skipped := store.ImportResult{Sessions: store.ImportCount{Skipped: 4}, Prompts: store.ImportCount{Skipped: 2},
		Observations: store.ImportCount{Skipped: 4}, Summaries: store.ImportCount{Skipped: 1}}
	if again != skipped {
		t.Errorf("second import %+v, want all skipped", again)
	}
	third, _ := export(t, dst, store.ExportFilter{}, exportedAt)
	if third != first {
		t.Errorf("a second import changed the memory:\n%s", third)
	}

	// Importing into the database it came from adds nothing either: its rows were never
	// hashed, and are found by their content.
	back, err := Import(ctx, src, strings.NewReader(first))
	if err != nil || back != skipped {
		t.Errorf("import into the source: %+v, %v; want all skipped", back, err)
	}
	// A changed record is new.
	edited := strings.Replace(first, "Quokka cookie cache", "Quokka cookie cache, edited", 1)
	res, err = Import(ctx, src, strings.NewReader(edited))
	if err != nil || res.Observations != (store.ImportCount{Added: 1, Skipped: 3}) {
		t.Errorf("import of an edited file: %+v, %v; want one observation added", res, err)
	}
}

func TestBadLineImportsNothing(t *testing.T) {
	ctx := context.Background()
	src, _ := memtest.Open(t)
	memtest.Fill(t, src)
	good, _ := export(t, src, store.ExportFilter{}, exportedAt)
	lines := strings.Split(good, "\n")
	for _, tc := range []struct {
		name    string
		line    int // 1-based line to replace; 0 appends
		text    string
		problem string
	}{
		{"not JSON", 9, `{"kind":"observation",`, "not a JSON object"},
		{"unknown kind", 9, `{"kind":"memory","session":"s1"}`, `unknown kind "memory"`},
		{"unknown field", 6, `{"kind":"prompt","session":"s1","project":"web","at":"2026-11-30T10:00:01Z","text":"x","extra":1}`, `unknown field "extra"`},
		{"bad time", 6, `{"kind":"prompt","session":"s1","project":"web","at":"yesterday","text":"x"}`, `at "yesterday" is not an RFC 3339 time`},
		{"no time", 6, `{"kind":"prompt","session":"s1","project":"web","text":"x"}`, "no time"},
		{"no session line", 0, `{"kind":"prompt","session":"s9","project":"web","at":"2026-11-30T10:00:01Z","text":"x"}`, `session "s9" has no session line`},
		{"observation without title", 9, `{"kind":"observation","session":"s1","project":"web","at":"2026-11-30T10:00:01Z","type":"change","title":""}`, "without a type or title"},
		{"second header", 9, lines[0], "a second header"},
		{"text after the record", 6, `{"kind":"prompt","session":"s1","project":"web","at":"2026-11-30T10:00:01Z","text":"x"} {}`, "after top-level value"},
		{"no header", 1, lines[1], "not a claude-mem export"},
		{"another product", 1, `{"kind":"header","format":1,"product":"claude-mem","version":"9"}`, `an export of "claude-mem"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := append([]string(nil), lines...)
			line := tc.line
			if line == 0 {
				bad = append(bad[:len(bad)-1], tc.text, "")
				line = len(bad) - 1
			} else {
				bad[line-1] = tc.text
			}
			dst, path := memtest.Open(t)
			_, err := Import(ctx, dst, strings.NewReader(strings.Join(bad, "\n")))
			var le *LineError
			if !errors.As(err, &le) || le.Line != line || !strings.Contains(err.Error(), tc.problem) {
				t.Fatalf("error %v; want line %d: …%s…", err, line, tc.problem)
			}
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Errorf("error %q does not start with its line", err)
			}
			if out, _ := export(t, dst, store.ExportFilter{}, exportedAt); strings.Count(out, "\n") != 1 {
				t.Errorf("something was imported from a bad file (%s):\n%s", path, out)
			}
		})
	}
	// Control: the unedited file imports.
	dst, _ := memtest.Open(t)
	if _, err := Import(ctx, dst, strings.NewReader(good)); err != nil {
		t.Fatalf("control: the good file: %v", err)
	}
}

func TestFutureFormatRefused(t *testing.T) {
	ctx := context.Background()
	file := `{"kind":"header","format":2,"product":"claude-mem-go","version":"9.0.0","exported_at":"2030-01-01T00:00:00Z","compression":"none"}
{"kind":"session","id":"s1","project":"web","cwd":"/w","started_at":"2030-01-01T00:00:00Z","tags":["new"]}
`
	dst, _ := memtest.Open(t)
	_, err := Import(ctx, dst, strings.NewReader(file))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Format != 2 {
		t.Fatalf("error %v; want a FormatError for format 2", err)
	}
	if want := "the file is export format 2, and this claude-mem reads format 1 and older: upgrade claude-mem to import it"; err.Error() != want {
		t.Errorf("message %q\nwant    %q", err, want)
	}
	// Control: the same file as format 1 is read, and fails only on its unknown field.
	_, err = Import(ctx, dst, strings.NewReader(strings.Replace(file, `"format":2`, `"format":1`, 1)))
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("as format 1: %v; want line 2's unknown field", err)
	}
}

func TestEmptyFile(t *testing.T) {
	dst, _ := memtest.Open(t)
	for _, f := range []string{"", "\n"} {
		_, err := Import(context.Background(), dst, strings.NewReader(f))
		var le *LineError
		if !errors.As(err, &le) || le.Line != 1 {
			t.Errorf("%q: %v; want a line 1 error", f, err)
		}
	}
}

// The same record twice in one file is stored once.
func TestDuplicateInAFile(t *testing.T) {
	src, _ := memtest.Open(t)
	memtest.Fill(t, src)
	good, _ := export(t, src, store.ExportFilter{}, exportedAt)
	lines := strings.Split(strings.TrimSuffix(good, "\n"), "\n")
	twice := strings.Join(append(lines, lines[7], lines[5]), "\n") + "\n"
	dst, _ := memtest.Open(t)
	res, err := Import(context.Background(), dst, strings.NewReader(twice))
	if err != nil {
		t.Fatal(err)
	}
	if res.Observations != (store.ImportCount{Added: 4, Skipped: 1}) || res.Prompts != (store.ImportCount{Added: 2, Skipped: 1}) {
		t.Errorf("observations %+v, prompts %+v; want the repeats skipped", res.Observations, res.Prompts)
	}
	if again, _ := export(t, dst, store.ExportFilter{}, exportedAt); again != good {
		t.Errorf("a repeated record was stored twice:\n%s", again)
	}
}
