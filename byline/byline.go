// Package byline says who made a pulled record and on which machine, in the words every
// reader shows (search, the MCP tools, the story, the viewer): a teammate's record is "by
// alice on desk", one of this person's from another of their machines "on desk", and a
// record made here has no byline. The names came from a server: a caller escapes the line
// as it escapes every stored value for its medium.
package byline

// Of is the byline of a record whose author (a teammate's server role; "" for this
// person) and machine ("" for this one) are as given; "" for a record made here.
func Of(author, machine string) string {
	switch {
	case author != "" && machine != "":
		return "by " + author + " on " + machine
	case author != "":
		return "by " + author
	case machine != "":
		return "on " + machine
	}
	return ""
}
