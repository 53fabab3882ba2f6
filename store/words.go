package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"unicode/utf8"
)

// searchTokenize is search_fts' tokenizer (migration 6), which the stemmer shares.
const searchTokenize = `porter unicode61 remove_diacritics 2`

// longestIndexedPrefix: search_fts keeps an index of every word's first 2 and 3
// characters (prefix='2 3'), so a query of a prefix that short is one lookup. A longer one
// merges the row lists of every word it begins, in full, once for each cursor reading it.
const longestIndexedPrefix = 3

// Words returns the words of the index that prefix* matches, when there are from one to n
// of them and a query can name each alone: FTS5 merges a prefix's words' row lists in full
// for every cursor, whatever rows the cursor reads, where a word is one seek (a search of
// "idem*" read that merge six times, 8 ms of 10 over 100,000 observations). ok is false
// when the prefix is better left as it is: short enough for the prefix index, matching no
// word or more than n, or a word the tokenizer would read otherwise when quoted.
func (x ftsIndex) Words(ctx context.Context, prefix string, n int) (words []string, ok bool, err error) {
	stemmed, err := stems(ctx, []string{prefix})
	if err != nil || len(stemmed[0]) != 1 {
		return nil, false, err
	}
	// The tokenizer stems a prefix as it stems a word ("retry*" is "retri*").
	p := stemmed[0][0]
	if utf8.RuneCountInString(p) <= longestIndexedPrefix {
		return nil, false, nil
	}
	conn, err := x.db.sql.Conn(ctx)
	if err != nil {
		return nil, false, err
	}
	defer conn.Close()
	// The index's words in order, one seek each: a vocabulary of rows would count each
	// word's rows, the merge this avoids.
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_words USING fts5vocab(main, search_fts, instance)`); err != nil {
		return nil, false, err
	}
	// term >= w + NUL, the least string after w: "term > w" walks every row of w first.
	st, err := conn.PrepareContext(ctx, `SELECT term FROM temp.search_words WHERE term >= ? LIMIT 1`)
	if err != nil {
		return nil, false, err
	}
	defer st.Close()
	for from := p; ; {
		var w string
		switch err := st.QueryRowContext(ctx, from).Scan(&w); {
		case err == sql.ErrNoRows:
			return checked(ctx, words)
		case err != nil:
			return nil, false, err
		}
		if !strings.HasPrefix(w, p) {
			return checked(ctx, words)
		}
		if len(words) == n {
			return nil, false, nil
		}
		words, from = append(words, w), w+"\x00"
	}
}

// checked keeps words when each, quoted in a query, is read as itself: the tokenizer stems
// a query's words again, and a stem is not always its own stem.
func checked(ctx context.Context, words []string) ([]string, bool, error) {
	if len(words) == 0 {
		return nil, false, nil
	}
	again, err := stems(ctx, words)
	if err != nil {
		return nil, false, err
	}
	for i, w := range words {
		if len(again[i]) != 1 || again[i][0] != w {
			return nil, false, nil
		}
	}
	return words, true, nil
}

// stemmer is an in-memory database holding an FTS5 table tokenized as search_fts is, and
// its vocabulary: SQLite's own tokenizer tells what the index makes of a word, never a
// copy of it. One connection (the database lives in it), one caller at a time.
var stemmer = sync.OnceValues(func() (*sql.DB, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	return db, nil
})

// stems returns the index's words of each of texts, in order.
func stems(ctx context.Context, texts []string) ([][]string, error) {
	db, err := stemmer()
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// IF NOT EXISTS: a connection the pool replaced holds a new, empty database.
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS stem USING fts5(text, tokenize='`+searchTokenize+`');
CREATE VIRTUAL TABLE IF NOT EXISTS stem_words USING fts5vocab(stem, instance);
DELETE FROM stem`); err != nil {
		return nil, err
	}
	for i, t := range texts {
		if _, err := conn.ExecContext(ctx, `INSERT INTO stem(rowid, text) VALUES (?, ?)`, i, t); err != nil {
			return nil, err
		}
	}
	rows, err := conn.QueryContext(ctx, `SELECT doc, term FROM stem_words ORDER BY doc, "offset"`)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(texts))
	err = scanAll(rows, func(r *sql.Rows) error {
		var doc int
		var term string
		err := r.Scan(&doc, &term)
		out[doc] = append(out[doc], term)
		return err
	})
	return out, err
}
