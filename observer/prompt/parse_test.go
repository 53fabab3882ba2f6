package prompt

import (
	"reflect"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

func TestParse(t *testing.T) {
	full := store.Observation{
		Type: "bugfix", Title: "Fixed the flaky upload test", Subtitle: "It waited on a timer.",
		Narrative: "The test slept 100ms.\nNow it waits on the done channel.",
		Facts:     []string{"upload_test.go used time.Sleep", "Run returns after Wait"},
		Concepts:  []string{"flaky test", "channels"},
		FilesRead: []string{"upload.go"}, FilesModified: []string{"upload_test.go"},
	}
	canonical := `<observation>
  <type>bugfix</type>
  <title>Fixed the flaky upload test</title>
  <subtitle>It waited on a timer.</subtitle>
  <facts>
    <fact>upload_test.go used time.Sleep</fact>
    <fact>Run returns after Wait</fact>
  </facts>
  <narrative>The test slept 100ms.
Now it waits on the done channel.</narrative>
  <concepts><concept>flaky test</concept><concept>channels</concept></concepts>
  <files_read><file>upload.go</file></files_read>
  <files_modified><file>upload_test.go</file></files_modified>
</observation>`
	summary := `<summary><request>fix the test</request><investigated>upload.go</investigated><learned>timers flake</learned>
<completed>fixed</completed><next_steps>none</next_steps><notes></notes></summary>`
	wantSum := &store.Summary{Request: "fix the test", Investigated: "upload.go", Learned: "timers flake", Completed: "fixed", NextSteps: "none"}
	minimal := func(typ, title string) store.Observation { return store.Observation{Type: typ, Title: title} }

	// final says whether a summary was asked; truncated whether the answer was cut at the
	// output limit. verdict and reasons are what runs records for the answer.
	type V = vocab.Verdict
	cases := []struct {
		name             string
		text             string
		final, truncated bool
		want             []store.Observation
		wantSum          *store.Summary
		verdict          V
		reasons          []Reason
		dropped          int
		warnings         []string // substrings, in order
	}{
		{"canonical with summary", canonical + "\n" + summary, true, false, []store.Observation{full}, wantSum, vocab.VerdictStored, nil, 0, nil},
		{"several observations", canonical + "\n" + `<observation><type>decision</type><title>Keep the ledger append-only</title></observation>`, false, false,
			[]store.Observation{full, minimal("decision", "Keep the ledger append-only")}, nil, vocab.VerdictStored, nil, 0, nil},
		{"code fences and prose around", "Here you go:\n```xml\n" + canonical + "\n```\nDone.", false, false,
			[]store.Observation{full}, nil, vocab.VerdictSalvaged, []Reason{ReasonCodeFence, ReasonProseAround}, 0, nil},
		{"XML in a code fence only", "```xml\n" + canonical + "\n```", false, false,
			[]store.Observation{full}, nil, vocab.VerdictSalvaged, []Reason{ReasonCodeFence}, 0, nil},
		{"prose around XML", "I looked at the session. " + canonical + "\nThat is all I found.", false, false,
			[]store.Observation{full}, nil, vocab.VerdictSalvaged, []Reason{ReasonProseAround}, 0, nil},
		{"case, attributes and whitespace in tags", `<OBSERVATION id="1"><Type> Feature </Type><TITLE >  Added   search
   </TITLE ><Facts><FACT> a </FACT></Facts></OBSERVATION >`, false, false,
			[]store.Observation{{Type: "feature", Title: "Added search", Facts: []string{"a"}}}, nil, vocab.VerdictStored, nil, 0, nil},
		{"missing closing tags", "<observation><type>refactor<title>Split the store</title><facts><fact>one<fact>two</facts>" +
			"<observation><type>change</type><title>Second one", false, false,
			[]store.Observation{{Type: "refactor", Title: "Split the store", Facts: []string{"one", "two"}}, minimal("change", "Second one")}, nil,
			vocab.VerdictSalvaged, []Reason{ReasonUnclosed}, 0, nil},
		{"missing observation close before the summary", "<observation><type>change</type><title>T</title>\n" + summary, true, false,
			[]store.Observation{minimal("change", "T")}, wantSum, vocab.VerdictSalvaged, []Reason{ReasonUnclosed}, 0, nil},
		{"truncated: complete ones kept, the cut one dropped", canonical + "\n<observation><type>bugfix</type><title>Half</title><narrative>The test sle", false, true,
			[]store.Observation{full}, nil, vocab.VerdictSalvaged, []Reason{ReasonTruncated}, 1, []string{"observation 2 of 2 was cut at the output limit"}},
		{"truncated inside the first block: nothing kept", "<observation><type>bugfix</type><title>Ha", false, true,
			nil, nil, vocab.VerdictUnusable, []Reason{ReasonTruncated}, 1, []string{"observation 1 of 1 was cut"}},
		{"truncated in the summary of a final run", canonical + "\n<summary><request>fix the te", true, true,
			[]store.Observation{full}, nil, vocab.VerdictSalvaged, []Reason{ReasonTruncated, ReasonSummaryMissing}, 1, []string{"the summary was cut"}},
		{"truncated right after a block: all kept", canonical, false, true,
			[]store.Observation{full}, nil, vocab.VerdictSalvaged, []Reason{ReasonTruncated}, 0, nil},
		{"entities are unescaped", `<observation><type>discovery</type><title>Map&lt;K, V&gt; &amp; &quot;generics&quot;</title>
<facts><fact>a &lt;/event&gt; in text</fact></facts></observation>`, false, false,
			[]store.Observation{{Type: "discovery", Title: `Map<K, V> & "generics"`, Facts: []string{"a </event> in text"}}}, nil, vocab.VerdictStored, nil, 0, nil},
		{"CDATA is taken as it is", `<observation><type>discovery</type><title><![CDATA[Map<K, V> & </title> in a title]]></title>
<narrative><![CDATA[x &lt; y stays escaped]]></narrative></observation>`, false, false,
			[]store.Observation{{Type: "discovery", Title: `Map<K, V> & </title> in a title`, Narrative: "x &lt; y stays escaped"}}, nil, vocab.VerdictStored, nil, 0, nil},
		{"unknown types map to the nearest, a missing one to change", `<observation><type>Bug-Fix</type><title>A</title></observation>
<observation><title>B</title></observation><observation><type>Insight</type><title>C</title></observation>
<observation><type>features</type><title>D</title></observation><observation><type>weird</type><title>E</title></observation>`, false, false,
			[]store.Observation{minimal("bugfix", "A"), minimal("change", "B"), minimal("discovery", "C"), minimal("feature", "D"), minimal("change", "E")}, nil,
			vocab.VerdictSalvaged, []Reason{ReasonUnknownType}, 0,
			[]string{`"A" has type "bug-fix": stored as bugfix`, `"B" has type "": stored as change`, `"C" has type "insight": stored as discovery`,
				`"D" has type "features": stored as feature`, `"E" has type "weird": stored as change`}},
		{"a missing title comes from the subtitle, the narrative or a fact", `<observation><type>bugfix</type><subtitle>Refunds rounded wrong</subtitle></observation>
<observation><type>bugfix</type><narrative>The retry loop never ended. It now stops after three.</narrative></observation>
<observation><type>bugfix</type><facts><fact>PORT defaults to 8080</fact></facts></observation>
<observation><type>bugfix</type></observation>`, false, false,
			[]store.Observation{
				{Type: "bugfix", Title: "Refunds rounded wrong", Subtitle: "Refunds rounded wrong"},
				{Type: "bugfix", Title: "The retry loop never ended", Narrative: "The retry loop never ended. It now stops after three."},
				{Type: "bugfix", Title: "PORT defaults to 8080", Facts: []string{"PORT defaults to 8080"}},
			}, nil, vocab.VerdictSalvaged, []Reason{ReasonMissingTitle, ReasonEmptyBlock}, 1,
			[]string{"has no title", "has no title", "has no title", "observation 4 of 4 is empty: dropped"}},
		{"two summaries: the first wins", summary + summary, true, false, nil, wantSum, vocab.VerdictSalvaged, []Reason{ReasonExtraSummary}, 1,
			[]string{"2 summaries: the first is kept"}},
		{"an empty summary is dropped", "<summary>\n</summary>", true, false, nil, nil, vocab.VerdictUnusable,
			[]Reason{ReasonEmptyBlock, ReasonSummaryMissing}, 1, []string{"the summary is empty"}},
		{"a summary where observations were asked", summary, false, false, nil, wantSum, vocab.VerdictSalvaged, []Reason{ReasonSummaryUnasked}, 0, nil},
		{"observations where a summary was asked", canonical, true, false, []store.Observation{full}, nil, vocab.VerdictSalvaged, []Reason{ReasonSummaryMissing}, 0, nil},
		{"an explicit skip", `<skip reason="only routine reads"/>`, false, false, nil, nil, vocab.VerdictSkipped, nil, 0, nil},
		{"a skip with its reason inside", "<skip>\n nothing new </skip>", false, false, nil, nil, vocab.VerdictSkipped, nil, 0, nil},
		{"the original claude-mem's skip_summary", `<skip_summary reason="no work done" />`, false, false, nil, nil, vocab.VerdictSkipped, nil, 0, nil},
		{"a skip with prose around", "Nothing here. <skip/>", false, false, nil, nil, vocab.VerdictSkipped, []Reason{ReasonProseAround}, 0, nil},
		{"a skip of a final run still owes the summary", "<skip/>", true, false, nil, nil, vocab.VerdictSkipped, []Reason{ReasonSummaryMissing}, 0, nil},
		{"empty", "  \n", false, false, nil, nil, vocab.VerdictUnusable, []Reason{ReasonEmpty}, 0, nil},
		{"prose only", "I could not find anything worth remembering.", false, false, nil, nil, vocab.VerdictUnusable, []Reason{ReasonProseOnly}, 0, nil},
		{"invalid UTF-8", "<observation><type>change</type><title>caf\xe9 \xff menu</title></observation>", false, false,
			[]store.Observation{minimal("change", "caf\uFFFD \uFFFD menu")}, nil, vocab.VerdictSalvaged, []Reason{ReasonInvalidUTF8}, 0,
			[]string{"not valid UTF-8"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := Parse(tc.text, tc.final, tc.truncated)
			if !reflect.DeepEqual(a.Observations, tc.want) {
				t.Errorf("observations\n got %+v\nwant %+v", a.Observations, tc.want)
			}
			if !reflect.DeepEqual(a.Summary, tc.wantSum) {
				t.Errorf("summary\n got %+v\nwant %+v", a.Summary, tc.wantSum)
			}
			if got := a.Verdict(); got != tc.verdict {
				t.Errorf("verdict %q, want %q", got, tc.verdict)
			}
			if !reflect.DeepEqual(a.Reasons, tc.reasons) {
				t.Errorf("reasons %q, want %q", a.Reasons, tc.reasons)
			}
			if a.Dropped != tc.dropped {
				t.Errorf("dropped %d, want %d", a.Dropped, tc.dropped)
			}
			if len(a.Warnings) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %q", a.Warnings, tc.warnings)
			}
			for i, w := range tc.warnings {
				if !strings.Contains(a.Warnings[i], w) {
					t.Errorf("warning %q, want %q", a.Warnings[i], w)
				}
			}
		})
	}
}

// The skip's reason is read from its attribute or its text.
func TestParseSkipReason(t *testing.T) {
	for text, want := range map[string]string{
		`<skip reason="only routine reads"/>`:      "only routine reads",
		"<SKIP>\n nothing   new\n</SKIP>":          "nothing new",
		`<skip_summary reason="no work done" />`:   "no work done",
		"<skip/> and <observation>x</observation>": "",
	} {
		if a := Parse(text, false, false); !a.Skipped || a.SkipWhy != want {
			t.Errorf("Parse(%q): skipped %v, why %q; want %q", text, a.Skipped, a.SkipWhy, want)
		}
	}
	// Control: no skip, no Skipped.
	if a := Parse("<observation><title>t</title></observation>", false, false); a.Skipped {
		t.Errorf("an answer without <skip> is skipped")
	}
}

// A title taken from a long field is cut at a word, under the length the prompt asks for.
func TestParseDerivedTitleLength(t *testing.T) {
	long := strings.Repeat("word ", 40)
	a := Parse("<observation><type>change</type><subtitle>"+long+"</subtitle></observation>", false, false)
	if len(a.Observations) != 1 {
		t.Fatalf("observations %+v", a.Observations)
	}
	title := a.Observations[0].Title
	if n := len(title); n > titleBytes || !strings.HasSuffix(title, "word…") {
		t.Errorf("title %q (%d bytes), want at most %d ending at a word with …", title, n, titleBytes)
	}
}
