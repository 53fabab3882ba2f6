// Package rank is the search engine (DESIGN §23): what a query means and how the records
// matching it are ordered, behind `hook search`, the MCP tools, the viewer and SessionStart.
// It reads stored memory through Index, which package store implements over its SQLite
// FTS5 index: storage finds the matches of a query and scores each with BM25; this package
// chooses the terms, raises a record for the query's terms it holds and for the matches
// next to it, breaks ties, collapses near-equal records and cuts the snippets.
package rank

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// How search ranks (DESIGN §23). One index holds every kind, so a record's BM25 score
// means the same whatever its kind. The query's words are ORed; a record's own score is
// its BM25 with column weights (Index.Matches), raised for each further query term it
// holds (coverageBoost). A record also takes a share of the scores of the best matches
// next to it in its session (contextShare): the records around one that answers are
// usually about the same thing, and are found by its words. The highest score ranks first,
// the newer of two equal scores first. Observations of one project with the same type and
// a near-equal title collapse into the best of them, which counts the others as Similar.

// Index is what ranking reads of stored memory. A match is an FTS5 query: quoted terms,
// ORed. Every method reads the records' current state; none writes.
type Index interface {
	// Matches returns the n best matches of match among the newest window matches of the
	// kinds f allows, whatever their kind, within f, best first; Score is the match's
	// BM25 with column weights, higher is better. flat: the newest n, newest first,
	// unscored.
	Matches(ctx context.Context, match string, f Filter, window, n int, flat bool) ([]Match, error)
	// Density returns the newest id of kind's records and, for each of matches, the id
	// of its sample-th newest match among them (0 when it has fewer matches).
	Density(ctx context.Context, kind string, matches []string, sample int) (newest int64, nth []int64, err error)
	// Holding returns, for each of matches, which of refs hold it.
	Holding(ctx context.Context, matches []string, refs []vocab.Ref) ([]map[vocab.Ref]bool, error)
	// Details returns what a hit shows of each of refs that exists, and what ranking
	// reads of it.
	Details(ctx context.Context, refs []vocab.Ref) ([]Detail, error)
	// Neighbours returns, for each of around, the ids of up to n observations of its
	// session just before it and just after it, nearest first: an observation's are the
	// observations next to it, another kind's those next to its time.
	Neighbours(ctx context.Context, around []Detail, n int) ([][2][]int64, error)
	// Texts returns the indexed text of each of refs.
	Texts(ctx context.Context, refs []vocab.Ref) (map[vocab.Ref]Text, error)
	// Words returns the words of the index that the prefix query prefix* matches, each a
	// match alone, when matching them is the cheaper way and there are at most n; ok is
	// false when the prefix is to be matched as it is.
	Words(ctx context.Context, prefix string, n int) (words []string, ok bool, err error)
}

// Match is one record matching a query, with its BM25 score (higher is better).
type Match struct {
	vocab.Ref
	Score float64
}

// Detail is what a hit shows of one record and what ranking reads of it.
type Detail struct {
	vocab.Ref
	Project  string
	Session  string
	Type     string // an observation's type; "" for the other kinds
	Title    string // observation title, summary request, or the prompt's first line
	Subtitle string // an observation's subtitle
	At       time.Time
	Time     int64  // At as the index orders records (Unix nanoseconds; 0 when unknown)
	Key      string // the record's title key (near-equal titles share it; the whole text of a prompt), "" for none
	Origin
}

// Origin is who made a pulled record and on which machine (package byline says it): the
// author is a teammate's server role, "" for this person; the machine "" for this one.
type Origin struct{ Author, Machine string }

// Text is one record's indexed text: one string per column of the index, in its order,
// and which of them is the body (what a hit holding no query word shows the start of).
type Text struct {
	Columns []string
	Body    int
}

// Filter narrows a search beyond its words. Zero fields do not narrow.
type Filter struct {
	Project      string    // "" = every project
	Kinds        []string  // nil = observations, summaries and prompts
	Type         string    // an observation type (bugfix, decision, …): observations only
	Since, Until time.Time // at >= Since, at < Until
	// Author keeps the records one author made: a teammate's server role, or Own for this
	// person's (made here or pulled from another of their machines: they carry no author).
	Author string
}

// Own, as Filter.Author, keeps this person's own records. No server role is named with a
// NUL byte, so it is never a teammate's name.
const Own = "\x00own"

// AuthorFilter is Filter.Author for the name a person asks for: Own when it is self, the
// role they sync as, so that naming oneself finds one's own records.
func AuthorFilter(name, self string) string {
	if name != "" && name == self {
		return Own
	}
	return name
}

// ByAuthor reports whether a record of author passes f's Author.
func (f Filter) ByAuthor(author string) bool {
	switch f.Author {
	case "":
		return true
	case Own:
		return author == ""
	}
	return author == f.Author
}

// Hit is one search result.
type Hit struct {
	Kind     string // observation, summary or prompt
	ID       int64
	Project  string
	Session  string
	Type     string // an observation's type; "" for the other kinds
	Title    string // observation title, summary request, or the prompt's first line
	Subtitle string // an observation's subtitle
	Snippet  string // plain text: the words around the matches in the best matching field
	Marks    []Span // where the matched words are in Snippet, for a renderer to mark
	Similar  int    // near-equal observations this hit stands for (see collapse)
	Repeats
	Context bool // found only by its session's context: it holds none of the query's words
	At      time.Time
	Rank    float64 // lower is better
	Origin
}

// Repeats is how often a prompt hit was asked: search collapses near-equal prompts of a
// project (the title key of their text) into the best of them. Zero on every other hit.
type Repeats struct {
	Asked    int      // the prompts it stands for, itself included
	Sessions []string // the sessions they were asked in, its own first, then by rank
}

// AskedNote is how every reader words Repeats: "asked 3 times, in sessions 6bd7b57a,
// c18e24bf, 626f39b5" (each session by its first 8 characters), or "" when r is zero.
func (r Repeats) AskedNote() string {
	if r.Asked < 2 {
		return ""
	}
	short := make([]string, len(r.Sessions))
	for i, s := range r.Sessions {
		short[i] = s[:min(len(s), 8)]
	}
	in := "session"
	if len(short) > 1 {
		in = "sessions"
	}
	return fmt.Sprintf("asked %d times, in %s %s", r.Asked, in, strings.Join(short, ", "))
}

// The ranking's constants.
const (
	// pool is how many best own matches are ranked further (at least the limit asked
	// for); the contextFrom best of them lend context to their neighbours.
	pool        = 100
	contextFrom = 15
	// contextNear: the records on each side of a match, in its session, that take a share
	// of its score; contextShare: the share of those after it (what follows a prompt or
	// a finding answers it), earlierShare times that for those before it.
	contextNear  = 2
	contextShare = 0.5
	earlierShare = 0.5
	// coverageBoost raises a record's own score by this fraction of it for each query term
	// beyond the first that it holds, so more of the query's words rank higher.
	coverageBoost = 0.5
	// maxTerms bounds the terms of one query: a pasted page is searched by its first
	// maxTerms distinct words.
	maxTerms = 64
	// exclusionPool: a query with -word reads this many times pool, so that a pool remains
	// once the records holding it are dropped.
	exclusionPool = 4
	// ubiquitySample: how many of a term's newest matches tell whether it is in most
	// records (see informative).
	ubiquitySample = 200
	// prefixWords: a prefix beginning at most this many of the index's words is matched
	// as those words (see spelledOut).
	prefixWords = 16
)

// rankWindow bounds the work of ranking: bm25 costs a lookup per matching row, so a
// word found in most of 100,000 observations took ~200 ms to rank. When there are more
// matches than this, only the newest rankWindow of them, whatever their kind, are ranked
// (see Index.Matches), which favours recent memory: 1,000 keeps a common word's search
// near 10 ms at 100,000 observations (2,000 took about twice that). A window per kind
// ranked three times as many rows over a history with prompts and summaries, the older
// kinds reaching back twenty times further. Fewer matches are all ranked.
const rankWindow = 1000

// Search finds the records of idx matching query within f, best first (a lower Rank is
// better), each with a snippet. The query is read by parseQuery; one with nothing to
// search, or limit <= 0, returns no hits and no error.
func Search(ctx context.Context, idx Index, query string, f Filter, limit int) ([]Hit, error) {
	return search(ctx, idx, query, f, limit, rankWindow, true)
}

// Compact is Search without snippets, for a reader that shows none: a snippet reads every
// field of each hit.
func Compact(ctx context.Context, idx Index, query string, f Filter, limit int) ([]Hit, error) {
	return search(ctx, idx, query, f, limit, rankWindow, false)
}

// candidate is one record being ranked.
type candidate struct {
	Hit
	own   float64 // its own BM25 score (positive: higher is better), 0 when found by context
	terms int     // how many of the query's terms it holds
	ctx   float64 // the share of its neighbours' scores it takes
	at    int64
	// same is what near-equal records share (see collapse), "" for none; below, when
	// positive, a score this prompt ranks under (see answeredFirst).
	same  string
	below float64
}

func (c *candidate) score() float64 {
	s := c.matchScore() + c.ctx
	if c.below > 0 && s >= c.below {
		s = math.Nextafter(c.below, 0)
	}
	return s
}

// matchScore is c's score for what it holds itself.
func (c *candidate) matchScore() float64 {
	return c.own * (1 + coverageBoost*float64(max(c.terms-1, 0)))
}

func refsOf(cands []candidate) []vocab.Ref {
	refs := make([]vocab.Ref, len(cands))
	for i, c := range cands {
		refs[i] = vocab.Ref{Kind: c.Kind, ID: c.ID}
	}
	return refs
}

// search ranks the records matching text within f; window is rankWindow but in tests.
func search(ctx context.Context, idx Index, text string, f Filter, limit, window int, snippets bool) ([]Hit, error) {
	q := parseQuery(text)
	if len(q.terms) == 0 || limit <= 0 {
		return nil, nil
	}
	kept := max(pool, limit)
	n := kept
	if len(q.not) > 0 {
		n *= exclusionPool // so that enough remain once the excluded are dropped
	}
	if err := spelledOut(ctx, idx, q.terms, q.not); err != nil {
		return nil, err
	}
	terms, flat, err := informative(ctx, idx, q.terms)
	if err != nil {
		return nil, err
	}
	q.terms = terms
	matches, err := idx.Matches(ctx, joinTerms(q.terms), f, window, n, flat)
	if err != nil {
		return nil, err
	}
	cands := make([]candidate, len(matches))
	for i, m := range matches {
		cands[i] = candidate{Hit: Hit{Kind: m.Kind, ID: m.ID}, own: m.Score, terms: 1}
		if flat {
			cands[i].own = 1 // every match weighs alike, the newest first
		}
	}
	cands, err = withoutExcluded(ctx, idx, cands, q)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	// The best pool of those left are ranked further, as without an exclusion: the rest
	// cost their details and terms (a third of an excluding search) to rank lower.
	cands = cands[:min(len(cands), kept)]
	byKey := map[vocab.Ref]*candidate{}
	for i := range cands {
		byKey[vocab.Ref{Kind: cands[i].Kind, ID: cands[i].ID}] = &cands[i]
	}
	if err := coverage(ctx, idx, q, cands, byKey); err != nil {
		return nil, err
	}
	if err := details(ctx, idx, cands); err != nil {
		return nil, err
	}
	// The best matches, counting coverage, lend context.
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.matchScore(), a.matchScore()) })
	for i := range cands {
		byKey[vocab.Ref{Kind: cands[i].Kind, ID: cands[i].ID}] = &cands[i]
	}
	found, err := byContext(ctx, idx, cands, byKey, q, f)
	if err != nil {
		return nil, err
	}
	cands = append(cands, found...)
	answeredFirst(cands)
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.score(), a.score()), cmp.Compare(b.at, a.at), cmp.Compare(b.ID, a.ID))
	})
	hits := collapse(cands, limit)
	if !snippets {
		return hits, nil
	}
	// The snippet marks what matched; the exclusions are left out.
	return hits, snippetsOf(ctx, idx, hits, q.terms)
}

// informative leaves out of terms those in more than 4 in 5 of the newest observations,
// while another term remains, and reports whether what is left is such a term (flat).
// BM25 gives a word in most records no weight (FTS5 floors its IDF when it is in over half
// of them), so it cannot tell records apart, yet ranking reads its whole list of rows: a
// word in 90,000 of 100,000 observations cost more than the rest of the search. A query
// of such words alone is ranked by recency (flat), and so is a phrase alone. A term is
// judged on its newest ubiquitySample matches among at least 4×ubiquitySample
// observations, where one bounded seek tells how dense it is.
func informative(ctx context.Context, idx Index, terms []term) (kept []term, flat bool, err error) {
	if len(terms) == 1 && len(terms[0].words) > 1 {
		// A phrase alone: its matches are what was asked for, newest first. BM25 would
		// order them by length and count only, after reading every row of the phrase's
		// words for an IDF that a one-term query does not need (23 ms over 100,000).
		return terms, true, nil
	}
	if len(terms) > 1 {
		// The terms together first: no term is denser than all of them (each one's
		// sample-th newest match is no newer than theirs), so when they are not dense, no
		// term is, and one cursor answered for all.
		newest, nth, err := idx.Density(ctx, vocab.KindObservation, []string{joinTerms(terms)}, ubiquitySample)
		if err != nil || newest < 4*ubiquitySample || !dense(newest, nth[0]) {
			return terms, false, err
		}
	}
	matches := make([]string, len(terms))
	for i, t := range terms {
		matches[i] = t.fts()
	}
	newest, nth, err := idx.Density(ctx, vocab.KindObservation, matches, ubiquitySample)
	if err != nil {
		return nil, false, err
	}
	if newest < 4*ubiquitySample || len(terms) < 2 && nth[0] == 0 {
		return terms, false, nil
	}
	var common []term
	for i, t := range terms {
		if dense(newest, nth[i]) {
			common = append(common, t)
		} else {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return common, true, nil
	}
	return kept, false, nil
}

// dense reports whether a term whose ubiquitySample-th newest match is observation nth (0:
// it has fewer matches) is in at least 4 in 5 of the observations since, up to newest.
func dense(newest, nth int64) bool {
	return nth != 0 && 5*ubiquitySample >= 4*(newest-nth+1)
}

// spelledOut matches each prefix term of lists as the words of the index it begins, when
// Index.Words finds that cheaper (at most prefixWords of them): the same records match.
func spelledOut(ctx context.Context, idx Index, lists ...[]term) error {
	for _, ts := range lists {
		for i, t := range ts {
			if !t.prefix || len(t.words) != 1 {
				continue
			}
			words, ok, err := idx.Words(ctx, t.words[0], prefixWords)
			if err != nil {
				return err
			}
			if ok {
				ts[i].any = words
			}
		}
	}
	return nil
}

// coverage counts, for each candidate, how many of q's terms it holds.
func coverage(ctx context.Context, idx Index, q query, cands []candidate, byKey map[vocab.Ref]*candidate) error {
	if len(q.terms) < 2 {
		return nil
	}
	matches := make([]string, len(q.terms))
	for i, t := range q.terms {
		matches[i] = t.fts()
	}
	held, err := idx.Holding(ctx, matches, refsOf(cands))
	if err != nil {
		return err
	}
	for k, c := range byKey {
		c.terms = 0
		for _, h := range held {
			if h[k] {
				c.terms++
			}
		}
	}
	return nil
}

// details fills what a hit shows and what ranking needs of each candidate.
func details(ctx context.Context, idx Index, cands []candidate) error {
	ds, err := idx.Details(ctx, refsOf(cands))
	if err != nil {
		return err
	}
	at := make(map[vocab.Ref]*candidate, len(cands))
	for i := range cands {
		at[vocab.Ref{Kind: cands[i].Kind, ID: cands[i].ID}] = &cands[i]
	}
	for _, d := range ds {
		c := at[d.Ref]
		c.Project, c.Session, c.Title, c.Type, c.Subtitle = d.Project, d.Session, d.Title, d.Type, d.Subtitle
		c.At, c.at, c.Origin = d.At, d.Time, d.Origin
		if d.Key == "" {
			continue
		}
		switch c.Kind {
		case vocab.KindObservation:
			c.same = c.Project + "\x00" + c.Type + "\x00" + d.Key
		case vocab.KindPrompt:
			c.same = c.Project + "\x00" + vocab.KindPrompt + "\x00" + d.Key
		}
	}
	return nil
}

// byContext gives each observation near one of the contextFrom best candidates, in its
// session, a share of that candidate's own score, and returns the observations it found
// that way which matched nothing themselves (within f).
func byContext(ctx context.Context, idx Index, cands []candidate, byKey map[vocab.Ref]*candidate, q query, f Filter) ([]candidate, error) {
	n := min(contextFrom, len(cands))
	if n == 0 {
		return nil, nil
	}
	around := make([]Detail, n)
	for i, c := range cands[:n] {
		around[i] = Detail{Ref: vocab.Ref{Kind: c.Kind, ID: c.ID}, Session: c.Session, Time: c.at}
	}
	near, err := idx.Neighbours(ctx, around, contextNear)
	if err != nil {
		return nil, err
	}
	var found []candidate
	newByKey := map[vocab.Ref]int{}
	for i, src := range cands[:n] {
		for side, ids := range near[i] {
			for _, id := range ids {
				share := contextShare * src.matchScore()
				if side == 0 {
					share *= earlierShare
				}
				k := vocab.Ref{Kind: vocab.KindObservation, ID: id}
				if c := byKey[k]; c != nil {
					c.ctx += share
					continue
				}
				if j, ok := newByKey[k]; ok {
					found[j].ctx += share
					continue
				}
				newByKey[k] = len(found)
				found = append(found, candidate{Hit: Hit{Kind: vocab.KindObservation, ID: id, Context: true}, ctx: share})
			}
		}
	}
	// A neighbour is a hit only within f, and never when the query excludes it.
	if err := details(ctx, idx, found); err != nil {
		return nil, err
	}
	found, err = withoutExcluded(ctx, idx, found, q)
	if err != nil {
		return nil, err
	}
	kept := found[:0]
	for _, c := range found {
		if (f.Project == "" || c.Project == f.Project) && (f.Since.IsZero() || !c.At.Before(f.Since)) &&
			(f.Until.IsZero() || c.At.Before(f.Until)) && (f.Type == "" || c.Type == f.Type) && f.ByAuthor(c.Author) &&
			(f.Kinds == nil || slices.Contains(f.Kinds, vocab.KindObservation)) {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// withoutExcluded drops the candidates holding one of q's excluded terms. Exclusions are
// applied to the ranked candidates rather than in the match: "a NOT b" with a common b
// walked most of the index (60 ms at 100,000 observations).
func withoutExcluded(ctx context.Context, idx Index, cands []candidate, q query) ([]candidate, error) {
	if len(q.not) == 0 || len(cands) == 0 {
		return cands, nil
	}
	held, err := idx.Holding(ctx, []string{joinTerms(q.not)}, refsOf(cands))
	if err != nil || len(held[0]) == 0 {
		return cands, err
	}
	kept := cands[:0]
	for _, c := range cands {
		if !held[0][vocab.Ref{Kind: c.Kind, ID: c.ID}] {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// answeredFirst ranks each set of near-equal prompts (one question asked again, see
// collapse) just below the best observation or summary of any of their sessions that holds
// as many of the query's terms: the record that answers is worth more than the question,
// however many times it was asked. cands' scores are final but for this.
func answeredFirst(cands []candidate) {
	type asked struct {
		terms    int
		sessions map[string]bool
		below    float64
	}
	questions := map[string]*asked{}
	for _, c := range cands {
		if c.Kind != vocab.KindPrompt || c.same == "" {
			continue
		}
		q := questions[c.same]
		if q == nil {
			q = &asked{sessions: map[string]bool{}}
			questions[c.same] = q
		}
		q.terms = max(q.terms, c.terms)
		q.sessions[c.Session] = true
	}
	if len(questions) == 0 {
		return
	}
	for _, q := range questions {
		for i := range cands {
			if c := &cands[i]; c.Kind != vocab.KindPrompt && !c.Context && c.terms >= q.terms && q.sessions[c.Session] {
				q.below = max(q.below, c.score())
			}
		}
	}
	for i := range cands {
		if c := &cands[i]; c.Kind == vocab.KindPrompt && c.same != "" {
			c.below = questions[c.same].below
		}
	}
}

// collapse keeps the first limit hits of ranked candidates, each standing for the
// lower-ranked near-equal ones (candidate.same): an observation for those of its project
// with its type and title key (the observer's duplicate rule), counted in Similar; a
// prompt for those of its project whose text has its key, counted in Asked with their
// sessions. A record without a key stands for none.
func collapse(cands []candidate, limit int) []Hit {
	var hits []Hit
	first := map[string]int{}
	for _, c := range cands {
		if c.same != "" {
			if i, ok := first[c.same]; ok {
				if i < 0 {
					continue
				}
				h := &hits[i]
				if c.Kind == vocab.KindPrompt {
					if h.Asked == 0 {
						h.Asked, h.Sessions = 1, []string{h.Session}
					}
					h.Asked++
					if !slices.Contains(h.Sessions, c.Session) {
						h.Sessions = append(h.Sessions, c.Session)
					}
				} else {
					h.Similar++
				}
				continue
			}
			first[c.same] = len(hits)
			if len(hits) == limit {
				first[c.same] = -1
			}
		}
		if len(hits) < limit {
			c.Hit.Rank = -c.score()
			hits = append(hits, c.Hit)
		}
	}
	return hits
}
