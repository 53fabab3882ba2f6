package spawn

import "github.com/claude-mem/claude-mem-go/vocab"

// Classify is stream.classify over whole output, as the tests give it: the product feeds
// its stream line by line as the run goes.
func Classify(lines [][]byte, exitCode int, timedOut bool) (vocab.Outcome, string) {
	stopped := ""
	if timedOut {
		stopped = "timed out"
	}
	return scan(lines).classify(exitCode, stopped)
}

// scan reads the lines that are valid JSON and skips the rest (a crash may print anything).
func scan(lines [][]byte) stream {
	var s stream
	for _, line := range lines {
		s.add(line)
	}
	return s
}
