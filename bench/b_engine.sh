#!/bin/sh
# Engine speed (one core) and memory: detailed estimates per second against
# the closed-form cookbook baseline, the two interleaved in rounds in the
# same process (bench/engine_bench.c, timed by its thread's CPU time);
# target >= 1,000,000 detailed estimates per CPU-second, judged on the median
# of the rounds with its spread (a miss only beyond the spread:
# bench/paired.py), peak RSS flat; and the same estimates with the time
# model on one GPU class after each.
set -u
make --no-print-directory build/bench/engine_bench >/dev/null || exit 1
pin=""
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then pin="taskset -c 0"; fi
out=$($pin ./build/bench/engine_bench models/meta-llama--Llama-3.1-8B/config.json 2000000)
st=$?
echo "$out" | grep -v '^round '
rounds=$(echo "$out" | grep '^round ' | cut -d' ' -f3-)
[ -n "$rounds" ] || { echo "engine: no rounds"; exit 1; }
echo "$rounds" | awk '{ print $2 }' | python3 bench/paired.py "engine: detailed with timeline, estimates per CPU-second" \
	--values --target ">=" 1000000 || st=1
echo "$rounds" | awk '{ print $2, $1 }' | python3 bench/paired.py "engine: detailed / baseline speed, per round" --unit x
echo "$rounds" | awk '{ print $3, $2 }' | python3 bench/paired.py "engine: with / without the time model speed, per round" --unit x
exit $st
