#!/bin/sh
# tools/nightly.sh: the nightly job (.github/workflows/nightly.yml runs it,
# tests/t_nightly.py runs it against a mock Hub). In the current directory,
# the root of a git checkout holding the spec:
#   1. build gpusizer if needed (make in this script's tree), unless $GPUSIZER
#      names one;
#   2. gpusizer fetch every model of the spec into its models_dir (a fetch
#      that brings nothing new leaves the cached files byte-identical);
#   3. gpusizer report --offline --check;
#   4. current (exit 0): nothing to do, exit 0, the tree stays clean (if the
#      fetch changed models/ without changing a report, step 6 commits it);
#   5. stale (exit 5): regenerate with gpusizer report --offline;
#   6. the commit step: git add the models and out directories, commit
#      them with a message naming the models and reports that changed; or,
#      with --propose, leave the changes in the tree for a pull-request action.
# Any other exit status of fetch or report ends the job with that status.
#
# usage: tools/nightly.sh [--spec FILE] [--propose]
# Environment:
#   GPUSIZER               the gpusizer binary (default: ./gpusizer of this
#                          script's tree, built with make when missing or stale)
#   GS_WRAP                command prefix for every gpusizer run (e.g. valgrind)
#   NIGHTLY_SPEC           the spec (default sizing.json; --spec wins)
#   NIGHTLY_PROPOSE=1      same as --propose
#   NIGHTLY_MESSAGE_FILE   with --propose: write the commit message there (for
#                          the pull request's title and body)
#   NIGHTLY_AUTHOR_NAME    commit author and committer (default github-actions[bot])
#   NIGHTLY_AUTHOR_EMAIL   (default 41898282+github-actions[bot]@users.noreply.github.com)
#   HF_TOKEN, HF_ENDPOINT, SOURCE_DATE_EPOCH ...  passed to gpusizer as they are
# Exit status: 0 current, committed or proposed; 2 usage, not a git work tree,
# or uncommitted changes already in the models or out directory; 1 a git
# step failed; otherwise the status of the failing gpusizer fetch or report
# (3 bad spec or config, 6 network, 7 gated, 8 private/token, 9 not found...).
# When $GITHUB_OUTPUT is set, "result=current|committed|proposed" is appended.
set -u
set -f  # model ids are split into words below, never globbed

here=$(cd "$(dirname "$0")/.." && pwd)
spec=${NIGHTLY_SPEC:-sizing.json}
propose=${NIGHTLY_PROPOSE:-0}
while [ $# -gt 0 ]; do
	case $1 in
	--spec) [ $# -ge 2 ] || { echo "nightly: --spec needs a file" >&2; exit 2; }
		spec=$2; shift 2 ;;
	--spec=*) spec=${1#--spec=}; shift ;;
	--propose) propose=1; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "nightly: unknown argument \"$1\" (try --help)" >&2; exit 2 ;;
	esac
done
name=${NIGHTLY_AUTHOR_NAME:-github-actions[bot]}
email=${NIGHTLY_AUTHOR_EMAIL:-41898282+github-actions[bot]@users.noreply.github.com}
say() { echo "nightly: $*"; }
result() {
	[ -n "${GITHUB_OUTPUT:-}" ] && echo "result=$1" >>"$GITHUB_OUTPUT"
	say "$1"
}
# shellcheck disable=SC2086  # GS_WRAP is a command prefix: split on purpose
gs() { ${GS_WRAP:-} "$GPUSIZER" "$@"; }

[ -f "$spec" ] || { echo "nightly: no spec \"$spec\" in $(pwd)" >&2; exit 2; }
git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	{ echo "nightly: $(pwd) is not a git work tree (the commit step needs one)" >&2; exit 2; }

# What the spec names: its models (ids only, not config.json paths), its
# model cache and its output directory.
spec_info=$(python3 - "$spec" <<'EOF'
import json, os, sys
s = json.load(open(sys.argv[1]))
print(s.get("models_dir") or "models")
print(s.get("out") or "out")
for m in s.get("models", []):
    if isinstance(m, str) and not m.endswith(".json") and not os.path.exists(m):
        print(m)
EOF
) || { echo "nightly: cannot read the models from $spec" >&2; exit 3; }
models_dir=$(echo "$spec_info" | sed -n 1p)
out_dir=$(echo "$spec_info" | sed -n 2p)
ids=$(echo "$spec_info" | sed -n '3,$p')

if [ -n "$(git status --porcelain -- "$models_dir" "$out_dir")" ]; then
	echo "nightly: uncommitted changes in $models_dir/ or $out_dir/; the commit step would take them in:" >&2
	git status --short -- "$models_dir" "$out_dir" >&2
	exit 2
fi

# 1. build
if [ -z "${GPUSIZER:-}" ]; then
	say "build"
	make -C "$here" --no-print-directory gpusizer || exit $?
	GPUSIZER=$here/gpusizer
fi

# 2. fetch
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/fetch"
if [ -n "$ids" ]; then
	say "fetch $(echo "$ids" | wc -l | tr -d ' ') models into $models_dir/"
	# shellcheck disable=SC2086  # one id per word
	gs fetch --models-dir "$models_dir" $ids >"$tmp/fetch"
	rc=$?
	cat "$tmp/fetch"
	if [ "$rc" -ne 0 ]; then
		echo "nightly: gpusizer fetch failed (exit $rc); nothing committed" >&2
		exit "$rc"
	fi
fi

# 3. check
say "report --offline --check"
gs report --spec "$spec" --offline --check >"$tmp/check" 2>&1
rc=$?
cat "$tmp/check"
case $rc in
0) ;;
5)	# 5. stale: regenerate
	say "reports stale: report --offline"
	gs report --spec "$spec" --offline || {
		rc=$?
		echo "nightly: gpusizer report failed (exit $rc); nothing committed" >&2
		exit "$rc"
	} ;;
*)	echo "nightly: gpusizer report --check failed (exit $rc); nothing committed" >&2
	exit "$rc" ;;
esac

# 4. current and nothing fetched changed: done
if [ -z "$(git status --porcelain -- "$models_dir" "$out_dir")" ]; then
	result current
	exit 0
fi

# 6. commit (or propose)
changed=$(sed -n 's/^ok  *\([^ ]*\) .*/\1/p' "$tmp/fetch" | tr '\n' ' ' | sed 's/ $//')
{
	if [ "$rc" -eq 5 ]; then
		echo "nightly: regenerate $out_dir/ after an upstream change${changed:+ ($changed)}"
	else
		echo "nightly: refresh $models_dir/ from the Hub${changed:+ ($changed)}; reports unchanged"
	fi
	echo
	echo "tools/nightly.sh: gpusizer fetch brought new configs or parameter counts for:"
	echo "${changed:-  (none named by fetch)}" | tr ' ' '\n' | sed 's/^/  /'
	if [ "$rc" -eq 5 ]; then
		echo
		echo "gpusizer report --offline --check before regenerating:"
		sed 's/^/  /' "$tmp/check"
	fi
} >"$tmp/msg"
if [ "$propose" = 1 ]; then
	git status --short -- "$models_dir" "$out_dir"
	if [ -n "${NIGHTLY_MESSAGE_FILE:-}" ]; then
		cp "$tmp/msg" "$NIGHTLY_MESSAGE_FILE" || exit 1
	fi
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		{ echo "title=$(head -n 1 "$tmp/msg")"; echo "changed=$changed"; } >>"$GITHUB_OUTPUT"
	fi
	result proposed
	exit 0
fi
git add -A -- "$models_dir" "$out_dir" || exit 1
git -c user.name="$name" -c user.email="$email" commit -q -F "$tmp/msg" || {
	echo "nightly: git commit failed" >&2
	exit 1
}
git log -1 --stat --format='%h %s' | cat
result committed
