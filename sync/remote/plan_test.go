package remote

import (
	"fmt"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// explain is the plan of query with args as the person c is runs it (row-level security
// and all), one line a node.
func explain(t *testing.T, c *Client, query string, args ...any) string {
	t.Helper()
	rows, err := c.conn.Query(ctx, "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		b.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The pulls read by index, at any size: the main pull walks records_pull from the cursor in
// the order it applies (no sort), a backfill records_shared from its place in one owner's
// project (the planner may sort what that range holds, never more); neither scans the
// table. The control: a query with no usable index
// (by title inside the body) is a scan, so the assertion can tell them apart.
func TestPullPlans(t *testing.T) {
	w := newWorld(t)
	w.team(t)
	alice, bob := w.client(t, "alice"), w.client(t, "bob")
	for batch := range 4 {
		recs := make([]wire.Record, 5000)
		for i := range recs {
			recs[i] = obs(t, fmt.Sprint("project-", i%20), "laptop", fmt.Sprint("title ", batch, i))
		}
		if _, err := alice.Push(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	if err := alice.Share(ctx, "project-3", "core"); err != nil {
		t.Fatal(err)
	}
	w.s.Exec(t, w.db, "ANALYZE claude_mem.records")
	for _, c := range []struct {
		who   *Client
		name  string
		query string
		args  []any
		index string
		sorts bool
	}{
		{alice, "the owner's pull", pullQuery, []any{"0", 0, "4294967296", 1000}, "records_pull", false},
		{bob, "a teammate's pull", pullQuery, []any{"0", 0, "4294967296", 1000}, "records_pull", false},
		{bob, "a teammate's backfill", backfillQuery, []any{"alice", "project-3", "0", 0, "4294967296", 0, 1000}, "records_shared", true},
	} {
		plan := explain(t, c.who, c.query, c.args...)
		t.Logf("%s (20,000 records):\n%s", c.name, plan)
		if !strings.Contains(plan, "Index Scan using "+c.index) && !strings.Contains(plan, "Bitmap Index Scan on "+c.index) ||
			strings.Contains(plan, "Seq Scan on records") || !c.sorts && strings.Contains(plan, "Sort") {
			t.Errorf("%s does not read by %s alone:\n%s", c.name, c.index, plan)
		}
	}
	control := explain(t, alice, `SELECT gid FROM claude_mem.records WHERE body->>'title' = $1`, "title 1 1")
	if !strings.Contains(control, "Seq Scan on records") {
		t.Errorf("control: a query by body is not a scan, so the plans prove nothing:\n%s", control)
	}
}
