#!/bin/sh
# Engine speed (one core) and memory, against the closed-form baseline.
set -eu
make --no-print-directory build/bench/engine_bench >/dev/null
taskset -c 0 ./build/bench/engine_bench models/meta-llama--Llama-3.1-8B/config.json 2000000 2>/dev/null ||
	./build/bench/engine_bench models/meta-llama--Llama-3.1-8B/config.json 2000000
