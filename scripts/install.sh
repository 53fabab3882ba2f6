#!/bin/sh
# Installs this checkout as a Claude Code plugin: the repository is a directory marketplace
# ("claude-mem-go") holding one plugin ("claude-mem"). Claude Code runs the hooks in place
# from this directory, so `make build` here updates the installed plugin.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
claude=${CLAUDE:-claude}

if [ ! -x "$root/bin/hook" ]; then
	echo "install: $root/bin/hook is missing; run 'make build' first" >&2
	exit 1
fi
if ! command -v "$claude" >/dev/null 2>&1; then
	cat >&2 <<MSG
install: the claude CLI is not on PATH. Install Claude Code, then run:
  claude plugin marketplace add "$root"
  claude plugin install claude-mem@claude-mem-go
MSG
	exit 1
fi
"$claude" plugin marketplace add "$root"
"$claude" plugin install claude-mem@claude-mem-go
echo
"$root/bin/hook" doctor || echo "install: the plugin is installed; 'hook doctor' above says what still needs setting up"
