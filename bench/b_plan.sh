#!/bin/sh
# Plan speed (one core): a whole plan for one model against one estimate.
set -eu
make --no-print-directory build/bench/plan_bench >/dev/null
taskset -c 0 ./build/bench/plan_bench models/Qwen--Qwen2.5-32B/config.json gpus 2>/dev/null ||
	./build/bench/plan_bench models/Qwen--Qwen2.5-32B/config.json gpus
