#!/bin/sh
# The Claude Code side of `make install` and `make uninstall`. The plugin is a directory
# marketplace ("claude-mem-go") holding one plugin ("claude-mem"); Claude Code runs it in
# place from that directory.
#   install.sh check DIR     claude is on PATH, or say how to get it and what to run (exit 1)
#   install.sh install DIR   back up Claude Code's settings.json, link ~/.local/bin/claude-mem
#                            to DIR/bin/hook, allow the memory tools (see below), add DIR
#                            as the marketplace, install the plugin, run doctor
#   install.sh uninstall DIR uninstall the plugin, remove the marketplace, take back the
#                            permission rule install added; keep the data dir
# The memory tools need a rule in Claude Code's user settings (claude -p refuses them, and a
# session asks at every call, without it): install asks once on a terminal; ALLOW_TOOLS=yes
# adds it without asking, ALLOW_TOOLS=no never; off a terminal it says how.
set -eu
claude=${CLAUDE:-claude}
market=claude-mem-go
id=claude-mem@$market

case "${1:-}" in
check)
	if command -v "$claude" >/dev/null 2>&1; then
		if ! command -v "${GO:-go}" >/dev/null 2>&1; then
			cat >&2 <<MSG
install: Go 1.26 is needed to build the plugin from a checkout, and \`go\` is not on PATH.
Install Go (https://go.dev/dl/), or use a release archive instead, which needs no Go:
see "Install without Go" in README.md.
MSG
			exit 1
		fi
		exit 0
	fi
	cat >&2 <<MSG
install: the claude CLI (Claude Code) is not on PATH. Install it with one of:
  npm install -g @anthropic-ai/claude-code            (Node.js 22 or newer)
  curl -fsSL https://claude.ai/install.sh | bash      (the native installer; no Node.js)
then run \`make install\` again: it builds the plugin into $2 and runs
  claude plugin marketplace add $2
  claude plugin install $id
(From a release archive, run those two commands with the unpacked directory instead.)
MSG
	exit 1
	;;
install)
	dir=$2
	bin=$dir/bin/hook
	# The backup of the user's settings.json comes first, before anything rewrites the file:
	# allow-tools below, and Claude Code's own plugin commands after it (permit.Paths).
	"$bin" allow-tools --backup-only
	# A command for people: claude-mem on PATH (doctor, search, stats, viewer, ...).
	bindir=$HOME/.local/bin
	if mkdir -p "$bindir" 2>/dev/null && ln -sf "$bin" "$bindir/claude-mem" 2>/dev/null; then
		case ":$PATH:" in
		*":$bindir:"*) echo "install: linked $bindir/claude-mem to $bin" ;;
		*) echo "install: linked $bindir/claude-mem to $bin; $bindir is not on your PATH: add it (export PATH=\"\$HOME/.local/bin:\$PATH\") or run $bin directly" ;;
		esac
	else
		echo "install: could not link $bindir/claude-mem; the command is $bin"
	fi
	# Before the plugin commands, so its backup (taken again) is still the user's file.
	if ! allowed=$("$bin" allow-tools --check); then
		answer=${ALLOW_TOOLS:-}
		if [ -z "$answer" ] && [ -t 0 ]; then
			printf 'Let Claude use the claude-mem memory tools without asking each time?\nThis adds "mcp__plugin_claude-mem_memory" to permissions.allow in your Claude Code settings. [Y/n] '
			read -r answer || answer=n
			case $answer in [nN]*) answer=no ;; *) answer=yes ;; esac
		fi
		case $answer in
		yes) "$bin" allow-tools || true ;;
		*) echo "$allowed" ;; # says the command that allows them
		esac
	fi
	# Adding again re-points a marketplace that moved; installing again is a no-op.
	"$claude" plugin marketplace add "$dir"
	"$claude" plugin install "$id"
	echo
	"$bin" doctor || echo "install: the plugin is installed; the doctor report above says what still needs setting up"
	;;
uninstall)
	bin=${2:-}/bin/hook
	link=$HOME/.local/bin/claude-mem
	if [ -L "$link" ] && [ "$(readlink "$link")" = "$bin" ]; then
		rm -f "$link" && echo "uninstall: removed $link"
	fi
	if [ -x "$bin" ]; then
		"$bin" allow-tools --remove || true
	else
		echo "uninstall: $bin not found; if install allowed the memory tools, remove \"mcp__plugin_claude-mem_memory\" from permissions.allow in your Claude Code settings by hand"
	fi
	if command -v "$claude" >/dev/null 2>&1; then
		"$claude" plugin uninstall "$id" || echo "uninstall: $id was not installed"
		"$claude" plugin marketplace remove "$market" || echo "uninstall: marketplace $market was not added"
	else
		echo "uninstall: the claude CLI is not on PATH; nothing to uninstall from" >&2
	fi
	case "$(uname -s)" in
	Darwin) data_default="${XDG_DATA_HOME:-$HOME/Library/Application Support}/claude-mem" ;;
	*) data_default="${XDG_DATA_HOME:-$HOME/.local/share}/claude-mem" ;;
	esac
	data=${CLAUDE_MEM_DATA_DIR:-$data_default}
	config=${CLAUDE_CONFIG_DIR:-$HOME/.claude}
	backup=$config/settings.json.bak-claude-mem # permit.PathsFor's Backup
	cat <<MSG
What stays, and how to remove it:
  your memory (the data dir):          rm -rf "$data"
  Claude Code's copy of the plugin:    rm -rf "$config/plugins/cache/$market"
  the test CLI of make test (if any):  rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}/claude-mem-go"
MSG
	if [ -f "$backup" ]; then
		echo "  your settings.json before install:   rm -f \"$backup\""
	fi
	;;
*)
	echo "usage: install.sh check DIR | install DIR | uninstall DIR" >&2
	exit 2
	;;
esac
