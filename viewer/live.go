package viewer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// liveShown is how many of the newest observations the live page starts with.
const liveShown = 30

type liveData struct {
	Observations []store.Observation
	Last         int64 // the newest id shown: the stream sends those after it
}

func (s *server) live(w http.ResponseWriter, r *http.Request) {
	s.withDB(w, r, func(db *store.DB, notice string) error {
		var d liveData
		if db != nil {
			var err error
			if d.Observations, err = db.LatestObservations(r.Context(), liveShown); err != nil {
				return err
			}
			if len(d.Observations) > 0 {
				d.Last = d.Observations[0].ID
			}
		}
		s.render(w, http.StatusOK, "live", page{Title: "Live", Nav: "live", Notice: notice, Data: d})
		return nil
	})
}

// liveItem is one observation as the live feed's script receives it.
type liveItem struct {
	ID       int64  `json:"id"`
	URL      string `json:"url"`
	Project  string `json:"project"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	Subtitle string `json:"subtitle"`
	When     string `json:"when"`
}

// liveEvents streams observations stored after the page's last one (server-sent events).
// Each connected page polls on its own, every Poll, through the viewer's one reader.
// When the file is replaced (a restore, a fresh data dir) its ids mean something else, so
// the stream says "reset" and ends: the page reloads and starts again from the new file.
func (s *server) liveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	last, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if id, err := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64); err == nil {
		last = id // a reconnecting EventSource resumes where it was
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	fl.Flush()
	var file os.FileInfo
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	for {
		fi, err := os.Stat(s.cfg.Memory.Path())
		if err == nil && file != nil && !os.SameFile(fi, file) {
			fmt.Fprint(w, "event: reset\ndata: {}\n\n")
			fl.Flush()
			return
		}
		if err == nil {
			file = fi
			if obs, err := s.after(r, last); err == nil {
				for _, o := range obs {
					b, _ := json.Marshal(liveItem{ID: o.ID, URL: recordURL(vocab.Ref{Kind: vocab.KindObservation, ID: o.ID}),
						Project: o.Project, Type: o.Type, Title: o.Title, Subtitle: o.Subtitle, When: s.when(o.At)})
					fmt.Fprintf(w, "id: %d\nevent: observation\ndata: %s\n\n", o.ID, b)
					last = o.ID
				}
			}
		}
		fmt.Fprint(w, ": tick\n\n") // a closed page shows up as a failed write
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// after returns the observations stored after id last.
func (s *server) after(r *http.Request, last int64) ([]store.Observation, error) {
	db, err := s.reader.Stored()
	if errors.Is(err, store.ErrNoDatabase) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	obs, err := db.ObservationsAfter(r.Context(), last, 100)
	s.reader.Drop(err)
	return obs, err
}
