package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"

	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// sqlOrigins reads the origin of a kind's ids by primary key: a condition on state would
// let the planner walk every pulled row by the state index instead. A record made here has
// neither field.
const sqlOrigins = `SELECT local_id, author, machine FROM sync_ids
WHERE kind = ? AND local_id IN (SELECT value FROM json_each(?))`

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
	byKind := map[string][]string{}
	for _, r := range refs {
		byKind[r.kind] = append(byKind[r.kind], r.id)
	}
	type origin struct{ author, machine string }
	found := map[[2]string]origin{}
	for kind, ids := range byKind {
		b, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		rows, err := db.sql.QueryContext(ctx, sqlOrigins, kind, string(b))
		if err != nil {
			return db.fail("origins", err)
		}
		err = scanAll(rows, func(r *sql.Rows) error {
			var id string
			var o origin
			err := r.Scan(&id, &o.author, &o.machine)
			found[[2]string{kind, id}] = o
			return err
		})
		if err != nil {
			return db.fail("origins", err)
		}
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
