package store

import (
	"context"
	"reflect"
	"testing"
)

// The per-kind sums honour the half-open day range and the project filter.
func TestRedactionsByKind(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO redactions VALUES
		('2026-11-30', 'alpha', 'github', 2), ('2026-11-30', 'beta', 'github', 1), ('2026-11-30', 'alpha', 'jwt', 1),
		('2026-11-24', 'alpha', 'aws_secret', 4), ('2026-11-23', 'alpha', 'anthropic', 9), ('2026-12-01', 'alpha', 'slack', 7)`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from, to, project string
		want              map[string]int
	}{
		{"2026-11-30", "2026-12-01", "", map[string]int{"github": 3, "jwt": 1}},
		{"2026-11-30", "2026-12-01", "alpha", map[string]int{"github": 2, "jwt": 1}},
		{"2026-11-24", "2026-12-01", "", map[string]int{"github": 3, "jwt": 1, "aws_secret": 4}},
		{"2026-11-29", "2026-11-30", "", map[string]int{}},
	} {
		got, err := db.RedactionsByKind(ctx, tc.from, tc.to, tc.project)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("[%s, %s) %q: %v, %v; want %v", tc.from, tc.to, tc.project, got, err, tc.want)
		}
	}
}
