#!/bin/sh
# Runs every test: unit binaries ($UNIT_DIR/test_*), then tests/t_*.sh and
# tests/t_*.py. Each test prints "PASS name" or "FAIL name: why" lines; a
# test file that exits non-zero counts one more failure. $GS_WRAP (e.g.
# valgrind) prefixes every gpusizer and unit-binary run. Prints a closing
# "N passed, N failed" line; exits 1 on any failure.
set -u
cd "$(dirname "$0")/.."
: "${GPUSIZER:=$PWD/gpusizer}"
: "${UNIT_DIR:=$PWD/build/tests}"
: "${GS_WRAP:=}"
export GPUSIZER UNIT_DIR GS_WRAP
export GS_TOP="$PWD"
pass=0; fail=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
only="${TESTS:-}"
run_one() {
	name=$1; shift
	[ -z "$only" ] || case "$name" in *"$only"*) ;; *) return ;; esac
	echo "== $name"
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited $rc"; f=1
	fi
	pass=$((pass + p)); fail=$((fail + f))
}
for t in "$UNIT_DIR"/test_*; do
	[ -x "$t" ] || continue
	# shellcheck disable=SC2086
	run_one "$(basename "$t")" $GS_WRAP "$t"
done
for t in tests/t_*.sh; do
	[ -e "$t" ] && run_one "$(basename "$t")" sh "$t"
done
for t in tests/t_*.py; do
	[ -e "$t" ] && run_one "$(basename "$t")" python3 "$t"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
