# claude-mem (Go). `make install` builds bin/hook and installs the plugin into Claude Code;
# `make test` runs every test (it installs the pinned Claude Code CLI for the e2e suite first).
# -count=1 throughout: tests/ and tests/e2e build bin/hook themselves, which go test's cache
# cannot see, so a cached pass could hide a change.

CLAUDE_CODE_VERSION := 2.1.328
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
CLI_DIR := .cache/npm
CLI := $(CLI_DIR)/node_modules/@anthropic-ai/claude-code-linux-x64/claude
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

export CGO_ENABLED := 0

.PHONY: build install test unit e2e cli cross bench clean

build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o bin/hook ./cmd/hook

install: build
	./scripts/install.sh

# Everything: vet, unit and testscript tests, the spawn-spec matrix and the real-CLI e2e suite.
test: cli
	go vet ./...
	CLAUDE_MEM_E2E_CLAUDE=$(abspath $(CLI)) go test -count=1 -timeout 25m ./...

# Without the real CLI (the e2e tests skip, unless CI=true).
unit:
	go test -count=1 ./...

e2e: cli
	CLAUDE_MEM_E2E_CLAUDE=$(abspath $(CLI)) go test -count=1 -timeout 15m -v ./tests/e2e/

cli: $(CLI)
$(CLI):
	mkdir -p $(CLI_DIR)
	[ -f $(CLI_DIR)/package.json ] || echo '{"private": true}' > $(CLI_DIR)/package.json
	cd $(CLI_DIR) && npm install --no-audit --no-fund @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)
	test -x $(CLI)
	$(CLI) --version

# A platform break fails here: every GOOS × GOARCH the plugin ships for.
cross:
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "build $$os/$$arch"; \
		GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags "$(LDFLAGS)" -o bin/cross/hook-$$os-$$arch$$ext ./cmd/hook; \
	done
	GOOS=darwin go vet ./...
	GOOS=windows go vet ./...

bench: build
	go run ./bench

clean:
	rm -rf bin
