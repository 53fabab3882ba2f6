// Command floor is the benchmark's floor: a static Go binary that reads stdin to EOF and
// prints {} — the least any hook process can cost.
package main

import (
	"io"
	"os"
)

func main() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	_, _ = os.Stdout.WriteString("{}")
}
