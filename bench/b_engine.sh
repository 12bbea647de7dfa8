#!/bin/sh
# Engine speed (one core) and memory: detailed estimates per second against
# the closed-form cookbook baseline, the two interleaved in the same process
# (bench/engine_bench.c); target >= 1,000,000 estimates/s, peak RSS flat;
# and the same estimates with the time model on one GPU class after each.
set -eu
make --no-print-directory build/bench/engine_bench >/dev/null
pin=""
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then pin="taskset -c 0"; fi
$pin ./build/bench/engine_bench models/meta-llama--Llama-3.1-8B/config.json 2000000
