package project

// The glob language of CLAUDE_MEM_EXCLUDED_PROJECTS: `?` is one character (a rune, not a
// byte: `caf?` matches café) other than the
// separator, `*` any run of them, `**` any run of anything; `<sep>**` followed by a separator
// or the end may also match nothing, so `~/work/**` covers ~/work itself and `a/**/b`
// matches a/b. Everything else is literal. path.Match has no `**`, hence this small NFA:
// linear in pattern × subject, whatever the pattern.

type tokKind uint8

const (
	tokLit      tokKind = iota // one literal character
	tokOne                     // ?
	tokStar                    // *
	tokAny                     // **
	tokSepOrNot                // the separator of <sep>**, which may be skipped with the ** after it
)

type tok struct {
	kind tokKind
	r    rune
}

func compile(pattern string, sep rune) []tok {
	pat := []rune(pattern)
	var out []tok
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; {
		case c == sep && i+2 < len(pat) && pat[i+1] == '*' && pat[i+2] == '*' &&
			(i+3 == len(pat) || pat[i+3] == sep):
			out = append(out, tok{kind: tokSepOrNot}, tok{kind: tokAny})
			i += 2
		case c == '*' && i+1 < len(pat) && pat[i+1] == '*':
			out = append(out, tok{kind: tokAny})
			i++
		case c == '*':
			out = append(out, tok{kind: tokStar})
		case c == '?':
			out = append(out, tok{kind: tokOne})
		default:
			out = append(out, tok{kind: tokLit, r: c})
		}
	}
	return out
}

// match reports whether the whole of s matches pat.
func match(pat, s string, sep rune) bool {
	toks := compile(pat, sep)
	cur := make([]bool, len(toks)+1)
	next := make([]bool, len(toks)+1)
	cur[0] = true
	closure(toks, cur)
	for _, c := range s {
		clear(next)
		alive := false
		for j, t := range toks {
			if !cur[j] {
				continue
			}
			switch t.kind {
			case tokLit:
				next[j+1] = next[j+1] || c == t.r
			case tokOne:
				next[j+1] = next[j+1] || c != sep
			case tokStar:
				next[j] = next[j] || c != sep
			case tokAny:
				next[j] = true
			case tokSepOrNot:
				next[j+1] = next[j+1] || c == sep
			}
		}
		for _, v := range next {
			alive = alive || v
		}
		if !alive {
			return false
		}
		closure(toks, next)
		cur, next = next, cur
	}
	return cur[len(toks)]
}

// closure adds the states reachable without consuming input: past a `*` or `**`, and past
// a skippable `<sep>**` as a whole.
func closure(toks []tok, set []bool) {
	for j, t := range toks {
		if !set[j] {
			continue
		}
		switch t.kind {
		case tokStar, tokAny:
			set[j+1] = true
		case tokSepOrNot:
			set[j+2] = true
		}
	}
}
