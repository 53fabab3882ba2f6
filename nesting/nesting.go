// Package nesting decides whether JSON text nests too deep to be handed to a decoder: a
// scan in constant memory and stack, run before any parse (a recursive parser's stack and
// a decoder's memory grow with depth; millions of `[` cost gigabytes).
package nesting

// Over reports JSON text nested deeper than max levels of arrays and objects. Strings are
// skipped (a bracket in one is text), and the text need not be valid JSON: an unbalanced
// text is judged by its deepest point.
func Over[T string | []byte](b T, max int) bool {
	depth, inStr, esc := 0, false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}
