#!/bin/sh
# Runs the tests of one tier, several files at once, and counts their lines.
#
#   sh tests/run.sh [-q] [--tier check|apps|units]
#
# Tiers (docs/HACKING.md, "Test tiers"):
#   check  every unit binary ($UNIT_DIR/test_*) and every tests/t_*.sh and
#          tests/t_*.py except the application tests (the default);
#   apps   the application tests: the tests/t_* files whose first 30 lines
#          hold the marker "gpusizer-tier: apps" (they drive LibreOffice,
#          Gnumeric, Chromium, a fresh Debian root);
#   units  the unit binaries only (make check-core: UNIT_DIR=build/core-alone).
#
# The line protocol: a test prints "PASS name", "FAIL name: why" or
# "SKIP name: why" (a check that could not run here, with the reason; never
# counted as a pass). A test file that exits non-zero without a FAIL line
# counts one failure, and so does one that prints no PASS, FAIL or SKIP line
# at all (it checked nothing). Closing line: "N passed, N failed, N skipped";
# exits 1 on any failure.
#
# Environment:
#   TESTS="word..."   only the test files whose name contains one of the words
#   JOBS=n            test files run at once (default: the number of CPUs + 1;
#                     most tests wait on the processes they start)
#   GS_WRAP=cmd       prefixes every gpusizer and unit-binary run (valgrind)
#   GS_ALLOWED_SKIPS=file   CI's skip policy: one shell pattern per line,
#                     matched against a SKIP line's text after "SKIP " (lines
#                     starting with # say why); a SKIP that matches none is
#                     counted as a failure
#   GPUSIZER, UNIT_DIR  the binary and the unit tests' directory
# Each file's output is kept apart and printed whole, in the order of the
# file list (units, t_*.sh, t_*.py), whatever order they finish in; the
# slowest start first (times of the last runs, kept in $UNIT_DIR/.times.*).
set -u
cd "$(dirname "$0")/.."
: "${GPUSIZER:=$PWD/gpusizer}"
: "${UNIT_DIR:=$PWD/build/tests}"
: "${GS_WRAP:=}"
: "${GS_ALLOWED_SKIPS:=}"
export GPUSIZER UNIT_DIR GS_WRAP
export GS_TOP="$PWD"

# ---- one test file (run by the pool below): output, status, seconds
if [ "${1:-}" = --one ]; then
	d=$2; i=$3
	kind=$(sed -n "${i}p" "$d/kind"); t=$(sed -n "${i}p" "$d/path")
	t0=$(date +%s%N)
	case "$kind" in
	# shellcheck disable=SC2086
	unit) $GS_WRAP "$t" ;;
	sh) sh "$t" ;;
	py) "$PYTHON" "$t" ;;
	esac >"$d/$i.log" 2>&1 </dev/null
	rc=$?
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >"$d/$i.ms"
	# the CPU seconds of the file's processes (user + system: the second line
	# of times, which must run in this shell, not in a pipeline's)
	times >"$d/$i.tms"
	awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] }
		printf "%.1f\n", n }' "$d/$i.tms" >"$d/$i.cpu"
	echo "$rc" >"$d/$i.rc.new" && mv "$d/$i.rc.new" "$d/$i.rc"
	exit 0
fi

tier=check quiet=""
while [ $# -gt 0 ]; do
	case "$1" in
	--tier) tier=${2:-}; shift 2 ;;
	-q) quiet=1; shift ;;
	*) echo "run.sh: unknown argument '$1' (sh tests/run.sh [-q] [--tier check|apps|units])" >&2; exit 2 ;;
	esac
done
case "$tier" in check | apps | units) ;; *) echo "run.sh: unknown tier '$tier' (check, apps, units)" >&2; exit 2 ;; esac
if [ -n "$GS_ALLOWED_SKIPS" ] && [ ! -r "$GS_ALLOWED_SKIPS" ]; then
	echo "run.sh: GS_ALLOWED_SKIPS=$GS_ALLOWED_SKIPS: cannot read it" >&2; exit 2
fi
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
: "${JOBS:=$((ncpu + 1))}"
# The interpreter, resolved once; where python3 on PATH is a version
# manager's shim (pyenv: a shell script, about a second a start on a loaded
# machine), the interpreter's own directory goes first on PATH, so that the
# Python programs the tests start (the harness, stand-ins) skip it too.
: "${PYTHON:=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || echo python3)}"
export PYTHON
if [ -x "$PYTHON" ] && [ "$(command -v python3)" != "$PYTHON" ]; then
	PATH=$(dirname "$PYTHON"):$PATH
	export PATH
fi

d=$(mktemp -d "${TMPDIR:-/tmp}/gs-run.XXXXXX") || exit 2
xpid=""
cleanup() {
	[ -z "$xpid" ] || kill "$xpid" 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

is_app() { head -n 30 "$1" | grep -q 'gpusizer-tier: apps'; }
only="${TESTS:-}"
n=0
add() { # KIND PATH (kind: unit, sh or py)
	name=$(basename "$2")
	if [ -n "$only" ]; then
		hit=""
		set -f
		for w in $only; do case "$name" in *"$w"*) hit=1 ;; esac; done
		set +f
		[ -n "$hit" ] || return
	fi
	n=$((n + 1))
	echo "$name" >>"$d/names"; echo "$1" >>"$d/kind"; echo "$2" >>"$d/path"
}
: >"$d/names"; : >"$d/kind"; : >"$d/path"
if [ "$tier" != apps ]; then
	for t in "$UNIT_DIR"/test_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		add unit "$t"
	done
fi
if [ "$tier" != units ]; then
	for t in tests/t_*.sh tests/t_*.py; do
		[ -e "$t" ] || continue
		if is_app "$t"; then [ "$tier" = apps ] || continue; else [ "$tier" = check ] || continue; fi
		case "$t" in *.sh) add sh "$t" ;; *) add py "$t" ;; esac
	done
fi
if [ "$n" -eq 0 ]; then
	echo "run.sh: no test in tier $tier${only:+ matching '$only'}"
	echo "0 passed, 0 failed, 0 skipped"
	exit 1
fi

# The start order: by the last run's seconds, slowest first (new files first).
keep=$UNIT_DIR/.times.$tier${GS_WRAP:+.wrapped}
times=$keep
[ -r "$times" ] || times=/dev/null
awk -v f="$times" 'BEGIN { while ((getline l < f) > 0) { split(l, a, " "); ms[a[1]] = a[2] } }
	{ print (($1 in ms) ? ms[$1] : 999999999), NR }' "$d/names" |
	sort -k1,1nr -k2,2n | awk '{ print $2 }' >"$d/order"
start=$(date +%s%N)
xargs -r -P "$JOBS" -n 1 sh "$0" --one "$d" <"$d/order" &
xpid=$!

pass=0; fail=0; skip=0
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	name=$(sed -n "${i}p" "$d/names")
	while [ ! -e "$d/$i.rc" ]; do
		# the pool is gone and this file never ran (a killed runner)
		kill -0 "$xpid" 2>/dev/null || [ -e "$d/$i.rc" ] || { echo 127 >"$d/$i.rc"; echo 0 >"$d/$i.ms"; }
		sleep 0.1
	done
	rc=$(cat "$d/$i.rc"); ms=$(cat "$d/$i.ms"); cpu=$(cat "$d/$i.cpu" 2>/dev/null || echo 0)
	[ -e "$d/$i.log" ] || : >"$d/$i.log"
	log=$d/$i.log
	# a SKIP outside the allowed list counts as a failure (CI's policy)
	extra=""
	if [ -n "$GS_ALLOWED_SKIPS" ]; then
		extra=$(sed -n 's/^SKIP //p' "$log" | while IFS= read -r s; do
			ok=""
			while IFS= read -r pat; do
				case "$pat" in "" | "#"*) continue ;; esac
				# shellcheck disable=SC2254
				case "$s" in $pat) ok=1; break ;; esac
			done <"$GS_ALLOWED_SKIPS"
			[ -n "$ok" ] || echo "FAIL $name: SKIP '$s' is not allowed here (not in $GS_ALLOWED_SKIPS)"
		done)
	fi
	p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		extra="${extra:+$extra
}FAIL $name: exited $rc"
	elif [ $((p + f + s)) -eq 0 ]; then
		extra="${extra:+$extra
}FAIL $name: printed no PASS, FAIL or SKIP line"
	fi
	[ -z "$extra" ] || f=$((f + $(printf '%s\n' "$extra" | grep -c '^FAIL ')))
	if [ -z "$quiet" ]; then
		echo "== $name ($(awk -v m="$ms" 'BEGIN { printf "%.1f", m / 1000 }') s, $cpu s CPU)"
		cat "$log"
	else
		grep -E '^(FAIL|SKIP) ' "$log"
	fi
	[ -z "$extra" ] || printf '%s\n' "$extra"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	echo "$name $ms" >>"$d/times"
	echo "$cpu" >>"$d/cpu"
done
wait "$xpid"
xpid=""
wall=$(( ($(date +%s%N) - start) / 1000000 ))
# Keep this run's times for the next one's start order (with a wrapper
# apart: valgrind's are other times), the other files' kept.
if [ -d "$UNIT_DIR" ]; then
	awk 'NR == FNR { new[$1] = $0; next } !($1 in new) { print } END { for (k in new) print new[k] }' \
		"$d/times" "$times" >"$keep.new" 2>/dev/null && mv -f "$keep.new" "$keep"
fi
if [ -z "$quiet" ]; then
	echo
	echo "tier $tier: $n files, $JOBS at once, $(awk -v m="$wall" 'BEGIN { printf "%.1f", m / 1000 }') s," \
		"$(awk '{ n += $1 } END { printf "%.1f", n }' "$d/cpu") s CPU; slowest:" \
		"$(sort -k2,2nr "$d/times" | head -n 5 | awk '{ printf "%s%s %.1f s", (NR > 1 ? ", " : ""), $1, $2 / 1000 }')"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
