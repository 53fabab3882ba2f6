package observer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/store"
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

	cases := []struct {
		name     string
		text     string
		want     []store.Observation
		wantSum  *store.Summary
		warnings []string // substrings, in order
	}{
		{"canonical with summary", canonical + "\n" + summary, []store.Observation{full}, wantSum, nil},
		{"code fences and prose around", "Here you go:\n```xml\n" + canonical + "\n```\nDone.", []store.Observation{full}, nil, nil},
		{"case, attributes and whitespace in tags", `<OBSERVATION id="1"><Type> Feature </Type><TITLE >  Added   search
   </TITLE ><Facts><FACT> a </FACT></Facts></OBSERVATION >`,
			[]store.Observation{{Type: "feature", Title: "Added search", Facts: []string{"a"}}}, nil, nil},
		{"missing closing tags", "<observation><type>refactor<title>Split the store</title><facts><fact>one<fact>two</facts>" +
			"<observation><type>change</type><title>Second one",
			[]store.Observation{{Type: "refactor", Title: "Split the store", Facts: []string{"one", "two"}}, minimal("change", "Second one")}, nil, nil},
		{"missing observation close before the summary", "<observation><type>change</type><title>T</title>\n" + summary,
			[]store.Observation{minimal("change", "T")}, wantSum, nil},
		{"entities are unescaped", `<observation><type>discovery</type><title>Map&lt;K, V&gt; &amp; &quot;generics&quot;</title>
<facts><fact>a &lt;/event&gt; in text</fact></facts></observation>`,
			[]store.Observation{{Type: "discovery", Title: `Map<K, V> & "generics"`, Facts: []string{"a </event> in text"}}}, nil, nil},
		{"unknown and missing types become change", `<observation><type>Bug-Fix</type><title>A</title></observation>
<observation><title>B</title></observation>`,
			[]store.Observation{minimal("change", "A"), minimal("change", "B")}, nil,
			[]string{`"A" has type "bug-fix": stored as change`, `"B" has type "": stored as change`}},
		{"a block without a title is skipped", `<observation><type>bugfix</type><narrative>no title</narrative></observation>
<observation><type>bugfix</type><title>kept</title></observation>`,
			[]store.Observation{minimal("bugfix", "kept")}, nil, []string{"observation 1 of 2 has no title: skipped"}},
		{"two summaries: the first wins", summary + summary, nil, wantSum, []string{"2 summaries: the first is kept"}},
		{"an empty summary is skipped", "<summary>\n</summary>", nil, nil, []string{"the summary is empty"}},
		{"nothing to remember", "", nil, nil, nil},
		{"prose only", "I could not find anything worth remembering.", nil, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obs, sum, warnings := Parse(tc.text)
			if !reflect.DeepEqual(obs, tc.want) {
				t.Errorf("observations\n got %+v\nwant %+v", obs, tc.want)
			}
			if !reflect.DeepEqual(sum, tc.wantSum) {
				t.Errorf("summary\n got %+v\nwant %+v", sum, tc.wantSum)
			}
			if len(warnings) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %q", warnings, tc.warnings)
			}
			for i, w := range tc.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %q, want %q", warnings[i], w)
				}
			}
		})
	}
}
