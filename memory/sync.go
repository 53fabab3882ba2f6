package memory

import (
	"context"
	"time"

	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/sync"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// SyncHere is this machine as a sync run tells the store (DESIGN §25): its name, the person
// (server role) it syncs as, the local day pulled redactions count on, and project.Key for
// each project's key across machines, so that every sync entry keys projects one way.
func SyncHere(machine, self string, loc *time.Location) store.SyncHere {
	return store.SyncHere{Machine: machine, Self: self, Key: project.Key, Loc: loc}
}

// SyncStore is db as a sync run reads and writes it (sync.Store); closing it closes db.
// The person the run syncs as is the server's (Apply's self), never a local setting.
func SyncStore(db *store.DB, here store.SyncHere) sync.Store { return &syncStore{db, here} }

type syncStore struct {
	db   *store.DB
	here store.SyncHere
}

func (s *syncStore) Outgoing(ctx context.Context, limit int) ([]wire.Record, error) {
	return s.db.SyncOutgoing(ctx, s.here, limit)
}

func (s *syncStore) Mark(ctx context.Context, p wire.Pushed) error { return s.db.SyncMark(ctx, p) }

func (s *syncStore) Cursor(ctx context.Context, server string) (wire.Cursor, error) {
	st, err := s.db.SyncState(ctx)
	if err != nil {
		return "", err
	}
	for _, sv := range st.Servers {
		if sv.Server == server {
			return sv.Cursor, nil
		}
	}
	return "", nil
}

func (s *syncStore) Apply(ctx context.Context, server, self string, page wire.Page) error {
	here := s.here
	here.Self = self
	_, err := s.db.SyncApply(ctx, server, here, page)
	return err
}

func (s *syncStore) Counts(ctx context.Context) (sync.Counts, error) {
	st, err := s.db.SyncState(ctx)
	if err != nil {
		return sync.Counts{}, err
	}
	held, err := s.db.SyncHeld(ctx, sync.MaxHeldShown)
	if err != nil {
		return sync.Counts{}, err
	}
	c := sync.Counts{Waiting: st.Waiting, Held: st.Held, Refused: st.Refused}
	for _, r := range held {
		c.HeldIDs = append(c.HeldIDs, recordid.Format(r))
	}
	return c, nil
}

func (s *syncStore) Close() error { return s.db.Close() }
