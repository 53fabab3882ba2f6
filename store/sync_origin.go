package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"

	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// sqlOrigins reads the origin of (kind, local id) pairs, each by primary key: a condition
// on state would let the planner walk every pulled row by the state index instead. A record
// made here has neither field.
const sqlOrigins = `SELECT s.kind, s.local_id, s.author, s.machine FROM json_each(?) j
JOIN sync_ids s ON s.kind = j.value->>0 AND s.local_id = j.value->>1`

// origined is a read row that can say who made it: its kind in sync_ids, its local id, and
// where its Author and Machine go.
type origined struct {
	kind, id        string
	author, machine *string
}

// withOrigins fills Author and Machine, in place, of the pulled records among rows (a
// []Observation, []Summary, []Prompt, []Entry, []rank.Hit, []StorySession or []Session;
// any other value is left alone): one lookup by primary key per id read, so what the
// story, search and the viewer read costs one query more. Records made here keep both empty.
func (db *DB) withOrigins(ctx context.Context, rows any) error {
	var refs []origined
	switch v := rows.(type) {
	case []Observation:
		for i := range v {
			refs = append(refs, origined{vocab.KindObservation, itoa(v[i].ID), &v[i].Author, &v[i].Machine})
		}
	case []Summary:
		for i := range v {
			refs = append(refs, origined{vocab.KindSummary, itoa(v[i].ID), &v[i].Author, &v[i].Machine})
		}
	case []Prompt:
		for i := range v {
			refs = append(refs, origined{vocab.KindPrompt, itoa(v[i].ID), &v[i].Author, &v[i].Machine})
		}
	case []Entry:
		for i := range v {
			refs = append(refs, origined{v[i].Kind, itoa(v[i].ID), &v[i].Author, &v[i].Machine})
		}
	case []rank.Hit:
		for i := range v {
			refs = append(refs, origined{v[i].Kind, itoa(v[i].ID), &v[i].Author, &v[i].Machine})
		}
	case []StorySession:
		for i := range v {
			refs = append(refs, origined{"session", v[i].ID, &v[i].Author, &v[i].Machine})
		}
	case []Session:
		for i := range v {
			refs = append(refs, origined{"session", v[i].ID, &v[i].Author, &v[i].Machine})
		}
	}
	if len(refs) == 0 {
		return nil
	}
	// Every kind's rows in one statement, each (kind, id) by primary key.
	pairs := make([][2]string, len(refs))
	for i, r := range refs {
		pairs[i] = [2]string{r.kind, r.id}
	}
	b, err := json.Marshal(pairs)
	if err != nil {
		return err
	}
	type origin struct{ author, machine string }
	found := map[[2]string]origin{}
	res, err := db.sql.QueryContext(ctx, sqlOrigins, string(b))
	if err != nil {
		return db.fail("origins", err)
	}
	err = scanAll(res, func(r *sql.Rows) error {
		var kind, id string
		var o origin
		err := r.Scan(&kind, &id, &o.author, &o.machine)
		found[[2]string{kind, id}] = o
		return err
	})
	if err != nil {
		return db.fail("origins", err)
	}
	for _, r := range refs {
		if o, ok := found[[2]string{r.kind, r.id}]; ok {
			*r.author, *r.machine = o.author, o.machine
		}
	}
	return nil
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

// withOrigin is withOrigins of one row.
func withOrigin[T any](ctx context.Context, db *DB, row *T) error {
	one := []T{*row}
	if err := db.withOrigins(ctx, one); err != nil {
		return err
	}
	*row = one[0]
	return nil
}
