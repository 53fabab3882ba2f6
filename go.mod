module github.com/claude-mem/claude-mem-go

go 1.26.0

require github.com/rs/zerolog v1.35.1

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
