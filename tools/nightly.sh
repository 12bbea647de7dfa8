#!/bin/sh
# tools/nightly.sh: the nightly job (.github/workflows/nightly.yml runs it,
# tests/t_nightly.py runs it against a mock Hub). In the current directory,
# the root of a git checkout holding the spec:
#   1. build gpusizer if needed (make in this script's tree), unless $GPUSIZER
#      names one;
#   2. gpusizer fetch every model of the spec into its models_dir (a fetch
#      that brings nothing new leaves the cached files byte-identical). When
#      the Hub cannot be reached (fetch exit 6: nothing listening, errors,
#      timeouts) the night goes on from the committed models: what the fetch
#      changed in models_dir is put back, and steps 3-7 run as usual;
#   3. gpusizer report --offline --check: the committed formats (the spec's
#      "commit") in out against the committed inputs;
#   4. stale (exit 5): regenerate with gpusizer report --offline (out and the
#      publish directory);
#   5. publish: the formats the spec does not commit (the workbook, the .gz
#      data) are built into its publish_dir (when current, with report
#      --format of those formats only), for the workflow to upload; the
#      directory must be ignored by git (or outside the work tree), so the
#      commit never takes them;
#   6. current and nothing fetched changed: done (the tree stays clean);
#   7. the commit step: git add the models and out directories, commit
#      them with a message naming the models and reports that changed; or,
#      with --propose, leave the changes in the tree for a pull-request action.
# Any other exit status of fetch or report ends the job with that status at
# once, nothing committed.
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
# Exit status: 0 current, committed or proposed; 6 the same, but the Hub could
# not be reached: out was checked (and regenerated, committed and published
# when stale) against the committed models, and the job should still fail so
# that the outage is seen; 2 usage, not a git work tree, uncommitted changes
# already in the models or out directory, or a publish directory git would
# commit; 1 a git step failed; otherwise the status of the failing gpusizer
# fetch or report (3 bad spec or config, 7 gated, 8 private/token, 9 not
# found...). When $GITHUB_OUTPUT is set, these lines are appended:
# "date=YYYY-MM-DD" (UTC, for the artifact's name), "publish=DIR" (the
# publish directory; empty when the spec commits every format), "fetch=N"
# (the fetch's exit status), "commit=SHA" (HEAD: what the files were built
# from) and "result=current|committed|proposed".
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
# The formats built for publishing are those of "formats" (default: md,
# html, xlsx, json, csv) the spec's "commit" leaves out (none without it).
spec_info=$(python3 - "$spec" <<'EOF'
import json, os, sys
s = json.load(open(sys.argv[1]))
formats = s.get("formats") or ["md", "html", "xlsx", "json", "csv"]
commit = s.get("commit")
print(s.get("models_dir") or "models")
print(s.get("out") or "out")
print(s.get("publish_dir") or "publish")
print(",".join(f for f in formats if commit is not None and f not in commit))
for m in s.get("models", []):
    if isinstance(m, str) and not m.endswith(".json") and not os.path.exists(m):
        print(m)
EOF
) || { echo "nightly: cannot read the models from $spec" >&2; exit 3; }
models_dir=$(echo "$spec_info" | sed -n 1p)
out_dir=$(echo "$spec_info" | sed -n 2p)
publish_dir=$(echo "$spec_info" | sed -n 3p)
published=$(echo "$spec_info" | sed -n 4p)
ids=$(echo "$spec_info" | sed -n '5,$p')
[ -n "$published" ] || publish_dir=""
output() { [ -z "${GITHUB_OUTPUT:-}" ] || echo "$1" >>"$GITHUB_OUTPUT"; }
output "date=$(date -u +%Y-%m-%d)"
output "publish=$publish_dir"

if [ -n "$(git status --porcelain -- "$models_dir" "$out_dir")" ]; then
	echo "nightly: uncommitted changes in $models_dir/ or $out_dir/; the commit step would take them in:" >&2
	git status --short -- "$models_dir" "$out_dir" >&2
	exit 2
fi
# The published files never go into a commit: their directory is ignored.
if [ -n "$publish_dir" ]; then
	made=0
	[ -d "$publish_dir" ] || made=1
	mkdir -p "$publish_dir" || exit 1
	case $(cd "$publish_dir" && pwd -P)/ in
	"$(git rev-parse --show-toplevel)"/*)
		git check-ignore -q "$publish_dir/" || {
			[ "$made" -eq 0 ] || rmdir "$publish_dir"
			echo "nightly: the spec's publish_dir \"$publish_dir\" is inside the work tree and not ignored by git; add /$publish_dir/ to .gitignore (the workbook and the .gz data are published, not committed)" >&2
			exit 2
		} ;;
	esac
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
	fetch_rc=$?
	cat "$tmp/fetch"
	output "fetch=$fetch_rc"
	case $fetch_rc in
	0) ;;
	6)	# The Hub cannot be reached: check what is committed all the same.
		echo "nightly: the Hub could not be reached (gpusizer fetch exit 6); going on from the committed models in $models_dir/" >&2
		{ git checkout -q -- "$models_dir" && git clean -fdq -- "$models_dir"; } || exit 1
		: >"$tmp/fetch" ;;
	*)	echo "nightly: gpusizer fetch failed (exit $fetch_rc); nothing committed" >&2
		exit "$fetch_rc" ;;
	esac
fi
hub_down=0
[ "${fetch_rc:-0}" -ne 6 ] || hub_down=1
# finish RESULT: the run's end, after the publish and commit steps.
finish() {
	output "commit=$(git rev-parse HEAD)"
	result "$1"
	if [ "$hub_down" -eq 1 ]; then
		echo "nightly: exit 6: the Hub could not be reached ($out_dir/ was checked against the committed models)" >&2
		exit 6
	fi
	exit 0
}

# 3. check
say "report --offline --check"
gs report --spec "$spec" --offline --check >"$tmp/check" 2>&1
rc=$?
cat "$tmp/check"
case $rc in
0) ;;
5)	# 4. stale: regenerate
	say "reports stale: report --offline"
	gs report --spec "$spec" --offline || {
		rc=$?
		echo "nightly: gpusizer report failed (exit $rc); nothing committed" >&2
		exit "$rc"
	} ;;
*)	echo "nightly: gpusizer report --check failed (exit $rc); nothing committed" >&2
	exit "$rc" ;;
esac

# 5. publish (a regeneration has written the publish directory already)
if [ -n "$published" ] && [ "$rc" -eq 0 ]; then
	say "report --offline --format $published (into $publish_dir/, not committed)"
	gs report --spec "$spec" --offline --quiet --format "$published" || {
		prc=$?
		echo "nightly: gpusizer report of the published formats failed (exit $prc); nothing committed" >&2
		exit "$prc"
	}
fi

# 6. current and nothing fetched changed: done
if [ -z "$(git status --porcelain -- "$models_dir" "$out_dir")" ]; then
	finish current
fi

# 7. commit (or propose)
changed=$(sed -n 's/^ok  *\([^ ]*\) .*/\1/p' "$tmp/fetch" | tr '\n' ' ' | sed 's/ $//')
{
	if [ "$rc" -eq 5 ] && [ "$hub_down" -eq 1 ]; then
		echo "nightly: regenerate $out_dir/ (stale against the committed inputs; the Hub could not be reached)"
	elif [ "$rc" -eq 5 ]; then
		echo "nightly: regenerate $out_dir/ after an upstream change${changed:+ ($changed)}"
	else
		echo "nightly: refresh $models_dir/ from the Hub${changed:+ ($changed)}; reports unchanged"
	fi
	echo
	if [ "$hub_down" -eq 1 ]; then
		echo "tools/nightly.sh: the Hub could not be reached (gpusizer fetch exit 6): the reports"
		echo "were regenerated from the committed models."
	else
		echo "tools/nightly.sh: gpusizer fetch brought new configs or parameter counts for:"
		echo "${changed:-  (none named by fetch)}" | tr ' ' '\n' | sed 's/^/  /'
	fi
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
	finish proposed
fi
git add -A -- "$models_dir" "$out_dir" || exit 1
git -c user.name="$name" -c user.email="$email" commit -q -F "$tmp/msg" || {
	echo "nightly: git commit failed" >&2
	exit 1
}
git log -1 --stat --format='%h %s' | cat
finish committed
