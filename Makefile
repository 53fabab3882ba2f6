# claude-mem (Go). `make install` builds bin/hook and installs the plugin into Claude Code;
# `make test` runs every test (it installs the pinned Claude Code CLI for the e2e suite first).
# -count=1 throughout: tests/ and tests/e2e build bin/hook themselves (internal/hookbin), which go test's cache
# cannot see, so a cached pass could hide a change.

CLAUDE_CODE_VERSION := 2.1.328
# Both are computed once (:=), so every binary and archive of one make run agree.
ifeq ($(origin VERSION),undefined)
VERSION := $(patsubst v%,%,$(shell git describe --tags --always --dirty 2>/dev/null || echo dev))
endif
# Every archive entry's mtime: the commit's time, so two builds of a commit are identical.
ifeq ($(origin SOURCE_DATE_EPOCH),undefined)
SOURCE_DATE_EPOCH := $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
endif
# The hook is built one way (internal/hookbin), here and by every test suite: static and
# reproducible (no paths, no build id, no VCS stamp; VERSION says which commit).
HOOKBUILD := go run ./cmd/dist build -version $(VERSION)
# The pinned test CLI lives in the user cache dir, never in the repository: Claude Code
# copies a marketplace's plugin directory whole into its plugin cache.
CACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/claude-mem-go
CLI_DIR := $(CACHE_DIR)/npm
CLI := $(CLI_DIR)/node_modules/@anthropic-ai/claude-code-linux-x64/claude
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
# make dist's output: the archives and SHA256SUMS; build/<os>-<arch>/ holds the binaries.
DIST ?= dist
# make install's directory marketplace: only the plugin's files, loaded in place by Claude
# Code (so nothing else of the checkout lands in its cache).
PLUGIN_DIR ?= $(DIST)/plugin
CLAUDE ?= claude
# The binary make build writes and make install stages (tests point it outside the checkout).
HOOK_BIN ?= bin/hook

export CGO_ENABLED := 0

# make cover's output: the unit tests' and the black-box suites' coverage data.
COVER_DIR ?= cover

.PHONY: build install uninstall test unit e2e cover cli binaries cross dist bench clean

build:
	$(HOOKBUILD) -o $(HOOK_BIN)

# Checks for claude first: without it there is nothing to install into.
install:
	@CLAUDE=$(CLAUDE) ./scripts/install.sh check $(abspath $(PLUGIN_DIR))
	@$(MAKE) --no-print-directory build VERSION=$(VERSION) HOOK_BIN=$(HOOK_BIN)
	go run ./cmd/dist stage -version $(VERSION) -hook $(HOOK_BIN) -goos $$(go env GOOS) -dir $(PLUGIN_DIR)
	CLAUDE=$(CLAUDE) ./scripts/install.sh install $(abspath $(PLUGIN_DIR))

# The plugin and its marketplace go; the data dir (your memory) stays.
uninstall:
	@CLAUDE=$(CLAUDE) ./scripts/install.sh uninstall $(abspath $(PLUGIN_DIR))

# Everything: vet, unit and testscript tests, the spawn-spec matrix and the real-CLI e2e suite.
test: cli
	go vet ./...
	CLAUDE_MEM_E2E_CLAUDE=$(CLI) go test -count=1 -timeout 25m ./...

# Without the real CLI (the e2e tests skip, unless CI=true).
unit:
	go test -count=1 ./...

e2e: cli
	CLAUDE_MEM_E2E_CLAUDE=$(CLI) go test -count=1 -timeout 15m -v ./tests/e2e/

# The unit tests' coverage plus the black-box suites' (tests/, tests/e2e run a -cover
# hook binary that writes into GOCOVERDIR), merged, per package and in total.
cover: cli
	rm -rf $(COVER_DIR) && mkdir -p $(COVER_DIR)/unit $(COVER_DIR)/blackbox
	go test -count=1 -cover -coverpkg=./... -coverprofile=$(COVER_DIR)/unit.out \
		$$(go list ./... | grep -v -e /tests$$ -e /tests/) -args -test.gocoverdir=$(abspath $(COVER_DIR)/unit)
	GOCOVERDIR=$(abspath $(COVER_DIR)/blackbox) CLAUDE_MEM_E2E_CLAUDE=$(CLI) go test -count=1 -timeout 25m ./tests/ ./tests/e2e/
	go tool covdata percent -i=$(COVER_DIR)/unit,$(COVER_DIR)/blackbox
	go tool covdata textfmt -i=$(COVER_DIR)/unit,$(COVER_DIR)/blackbox -o $(COVER_DIR)/all.out
	@go tool cover -func=$(COVER_DIR)/all.out | tail -1

# Installs the pinned CLI under $(CLI_DIR) unless that version is already there.
cli:
	@[ -x $(CLI) ] && $(CLI) --version | grep -q '^$(CLAUDE_CODE_VERSION) ' || { \
		set -e; mkdir -p $(CLI_DIR); \
		[ -f $(CLI_DIR)/package.json ] || echo '{"private": true}' > $(CLI_DIR)/package.json; \
		cd $(CLI_DIR) && npm install --no-audit --no-fund @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION); }
	$(CLI) --version

# Every GOOS × GOARCH the plugin ships for, into $(DIST)/build/<os>-<arch>/.
binaries:
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "build $$os/$$arch"; \
		$(HOOKBUILD) -goos $$os -goarch $$arch -o $(DIST)/build/$$os-$$arch/hook$$ext; \
	done

# A platform break fails here.
cross: binaries
	GOOS=darwin go vet ./...
	GOOS=windows go vet ./...

# $(DIST)/claude-mem-<version>-<os>-<arch>.tar.gz (.zip on windows), each a directory
# marketplace, and $(DIST)/SHA256SUMS.
dist: binaries
	go run ./cmd/dist archive -version $(VERSION) -epoch $(SOURCE_DATE_EPOCH) -bins $(DIST)/build -out $(DIST) $(PLATFORMS)

bench: build
	go run ./bench

# Leaves $(PLUGIN_DIR): Claude Code runs the installed plugin from it.
clean:
	rm -rf bin $(COVER_DIR) $(DIST)/build $(DIST)/claude-mem-* $(DIST)/SHA256SUMS
