#!/bin/sh
# Runs the libFuzzer targets built by mk/fuzz.mk.
#   run.sh fuzz TARGET...     each for $FUZZ_SECONDS s, starting from the
#                             committed corpus (read only) plus the working
#                             corpus $FUZZ_DIR/corpus/<t> (new inputs go there)
#   run.sh regress TARGET...  each target once over every committed corpus file
# FUZZ_JOBS targets run at once (default 1; each is one process on one CPU,
# so every target gets its FUZZ_SECONDS whatever FUZZ_JOBS is).
# FUZZ_FORK=1: keep fuzzing past a crash (libFuzzer -fork=1 -ignore_crashes=1),
# so every crash input of the run is kept, not only the first.
# Prints one line per target, in the order given (executions, crashes);
# exits 1 when any target crashed, leaked or timed out. Crash inputs are
# kept in $FUZZ_DIR/artifacts/<t>/ (add a minimal one to
# tests/fuzz/corpus/<t>/).
set -u
: "${FUZZ_DIR:=build/fuzz}"
: "${FUZZ_SECONDS:=60}"
: "${FUZZ_JOBS:=1}"
cd "$(dirname "$0")/../.."
export FUZZ_DIR FUZZ_SECONDS
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Per-target input size limits (bytes): a config or a spec is a few KB.
max_len() {
	case "$1" in
	model_id) echo 512 ;;
	gpu|spec|template|measured) echo 8192 ;;
	*) echo 32768 ;;
	esac
}
# one MODE TARGET: runs one target; its lines go to $FUZZ_DIR/log/<t>.out,
# and "bad" to $FUZZ_DIR/log/<t>.bad when it failed.
one() {
	mode=$1 t=$2
	bin=$FUZZ_DIR/fuzz_$t
	seeds=tests/fuzz/corpus/$t
	log=$FUZZ_DIR/log/$t.log
	art=$FUZZ_DIR/artifacts/$t
	out=$FUZZ_DIR/log/$t.out
	mkdir -p "$FUZZ_DIR/log" "$art" "$FUZZ_DIR/corpus/$t"
	rm -f "$FUZZ_DIR/log/$t.bad"
	bad() { echo bad >"$FUZZ_DIR/log/$t.bad"; }
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz.$t: $bin not built" >"$out"; bad; return
	fi
	if [ "$mode" = regress ]; then
		n=$(find "$seeds" -type f 2>/dev/null | wc -l)
		if [ "$n" -eq 0 ]; then
			echo "FAIL fuzz-regress.$t: no corpus in $seeds" >"$out"; bad; return
		fi
		find "$seeds" -type f -print0 | xargs -0 "$bin" -artifact_prefix="$art/" \
		  -rss_limit_mb=2048 -timeout=10 >"$log" 2>&1
		rc=$?
		if [ "$rc" -eq 0 ]; then
			echo "PASS fuzz-regress.$t ($n inputs)" >"$out"
		else
			{ echo "FAIL fuzz-regress.$t: exit $rc, see $log"; tail -n 30 "$log"; } >"$out"; bad
		fi
		return
	fi
	rm -f "$art"/*
	fork=""
	[ "${FUZZ_FORK:-0}" = 1 ] && fork="-fork=1 -ignore_crashes=1"
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$FUZZ_SECONDS" -max_len="$(max_len "$t")" -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/" $fork \
	  "$FUZZ_DIR/corpus/$t" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' "$log" | tail -n 1)
	crashes=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
	  -o -name 'oom-*' \) | wc -l)
	echo "fuzz.$t: ${execs:-?} executions in ${FUZZ_SECONDS}s, $crashes crash/leak/timeout inputs, exit $rc" >"$out"
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		{ grep -m 3 -E 'ERROR|runtime error|SUMMARY' "$log"
		  echo "  log: $log; inputs: $art/"; } >>"$out"
		bad
	fi
}
if [ "${1:-}" = --one ]; then
	one "$2" "$3"
	exit 0
fi
mode=${1:-}; shift
case "$mode" in fuzz | regress) ;; *) echo "usage: tests/fuzz/run.sh fuzz|regress TARGET..." >&2; exit 2 ;; esac
mkdir -p "$FUZZ_DIR/log"
for t in "$@"; do rm -f "$FUZZ_DIR/log/$t.out" "$FUZZ_DIR/log/$t.bad"; done
printf '%s\n' "$@" | xargs -r -P "$FUZZ_JOBS" -I{} sh tests/fuzz/run.sh --one "$mode" {}
bad=0
for t in "$@"; do
	cat "$FUZZ_DIR/log/$t.out" 2>/dev/null || { echo "FAIL fuzz.$t: did not run"; bad=1; }
	[ ! -e "$FUZZ_DIR/log/$t.bad" ] || bad=1
done
exit $bad
