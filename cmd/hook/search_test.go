package main

import (
	"reflect"
	"testing"
)

func TestParseSearchArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want searchOpts
		bad  bool
	}{
		{[]string{"queue", "race"}, searchOpts{limit: 20, query: "queue race"}, false},
		{[]string{"-bar"}, searchOpts{limit: 20, query: "-bar"}, false},
		{[]string{"--project", "web", "--limit=5", "--json", "a:b", "-c"}, searchOpts{project: "web", limit: 5, json: true, query: "a:b -c"}, false},
		{[]string{"x", "--project=api"}, searchOpts{project: "api", limit: 20, query: "x"}, false},
		{[]string{"--", "--json"}, searchOpts{limit: 20, query: "--json"}, false},
		{[]string{"--limit", "0", "x"}, searchOpts{}, true},
		{[]string{"--limit"}, searchOpts{}, true},
		{[]string{"--json"}, searchOpts{}, true},
	} {
		got, err := parseSearchArgs(tc.args)
		if (err != nil) != tc.bad || (!tc.bad && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("parseSearchArgs(%q) = %+v, %v; want %+v, bad=%v", tc.args, got, err, tc.want, tc.bad)
		}
	}
}
