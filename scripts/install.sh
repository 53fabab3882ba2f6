#!/bin/sh
# The Claude Code side of `make install` and `make uninstall`. The plugin is a directory
# marketplace ("claude-mem-go") holding one plugin ("claude-mem"); Claude Code runs it in
# place from that directory.
#   install.sh check DIR     claude is on PATH, or say how to get it and what to run (exit 1)
#   install.sh install DIR   add DIR as the marketplace, install the plugin, run doctor
#   install.sh uninstall     uninstall the plugin, remove the marketplace; keep the data dir
set -eu
claude=${CLAUDE:-claude}
market=claude-mem-go
id=claude-mem@$market

case "${1:-}" in
check)
	command -v "$claude" >/dev/null 2>&1 && exit 0
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
	# Adding again re-points a marketplace that moved; installing again is a no-op.
	"$claude" plugin marketplace add "$dir"
	"$claude" plugin install "$id"
	echo
	"$dir/bin/hook" doctor || echo "install: the plugin is installed; 'hook doctor' above says what still needs setting up"
	;;
uninstall)
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
	echo "Your memory is kept in $data; to delete it: rm -rf \"$data\""
	;;
*)
	echo "usage: install.sh check | install DIR | uninstall" >&2
	exit 2
	;;
esac
