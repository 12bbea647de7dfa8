#!/bin/sh
# The device tool sends the working tree (tracked files, and untracked ones
# git does not ignore) and refuses more than 64 MiB; out/ alone is over
# 70 MiB. `hide` takes out/ out of the index and ignores it locally
# (.git/info/exclude), so that it does not travel; `restore` puts both back.
# Nothing in out/ is touched on disk. Run `restore` right after the device
# call: while out/ is hidden, a commit would delete it.
#   sh tools/device-tree.sh hide|restore|size
set -eu
cd "$(dirname "$0")/.."
EX=.git/info/exclude
MARK="# tools/device-tree.sh hide: the next line"
size() {
	# bytes that would travel: tracked + untracked-not-ignored, plus .device if carried
	t=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
	d=$(du -sb .device 2>/dev/null | cut -f1 || echo 0)
	echo "device-tree: working tree $((t / 1048576)) MiB, .device $((${d:-0} / 1048576)) MiB (limit 64 MiB together)"
}
case "${1:-}" in
hide)
	grep -qxF "$MARK" "$EX" 2>/dev/null || printf '%s\n/out/\n' "$MARK" >>"$EX"
	git rm -r -q --cached out
	echo "device-tree: out/ hidden from the device tool; run 'sh tools/device-tree.sh restore' after the call"
	size
	;;
restore)
	git reset -q -- out
	if [ -f "$EX" ]; then
		awk -v m="$MARK" '$0 == m { skip = 1; next } skip { skip = 0; next } { print }' "$EX" >"$EX.tmp"
		mv "$EX.tmp" "$EX"
	fi
	if [ -n "$(git status --porcelain -- out)" ]; then
		echo "device-tree: out/ restored but differs from HEAD:" >&2
		git status --short -- out | head >&2
		exit 1
	fi
	echo "device-tree: out/ restored (tracked, as in HEAD)"
	;;
size) size ;;
*) echo "usage: sh tools/device-tree.sh hide|restore|size" >&2; exit 2 ;;
esac
