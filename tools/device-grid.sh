#!/bin/sh
# Runs ON the GPU machine the device tool lends (see measurements/README.md,
# "Running the grid on a lent GPU"): the verify grid with the bundled
# gpusizer (.device/, from tools/device-bundle.sh, carried), then copies what
# came of it into $OUT: grid.log, verified.jsonl (the store gpusizer verify
# appended to) and verify.tar (out/verify/). Nothing here writes a number:
# every figure comes from gpusizer verify's own run.
#   sh tools/device-grid.sh            # GRID, DEADLINE, TIMEOUT as verify-grid.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gs-device-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export GPUSIZER="$PWD/.device/gpusizer"
export DEADLINE=${DEADLINE:-420} TIMEOUT=${TIMEOUT:-240}
log="$OUT/grid.log"
{
	echo "== machine"
	date -u +%Y-%m-%dT%H:%M:%SZ
	uname -a
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
	python3 -c 'import sys, torch, transformers; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)' 2>&1
	python3 -m pip list 2>/dev/null | grep -iE '^(torch|transformers|peft|bitsandbytes|accelerate|flash)' || true
	if ! "$GPUSIZER" --version; then
		echo "device-grid: .device/gpusizer does not run here: carry .device (sh tools/device-bundle.sh)"
		exit 1
	fi
	# NVML: gpusizer dlopens libnvidia-ml.so.1; point at the driver's copy
	# when the loader's cache does not list it
	if ! ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then
		for f in /usr/local/nvidia/lib64/libnvidia-ml.so.1 /usr/local/nvidia/lib/libnvidia-ml.so.1 \
		         /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1; do
			if [ -e "$f" ]; then export GPUSIZER_NVML_LIB="$f"; echo "NVML: $f"; break; fi
		done
	fi
	echo "== grid (GRID=${GRID:-quick} DEADLINE=$DEADLINE TIMEOUT=$TIMEOUT)"
	sh tools/verify-grid.sh
	echo "verify-grid exit $?"
} >"$log" 2>&1
rc=$(tail -1 "$log" | sed -n 's/^verify-grid exit //p')
[ -f measurements/verified.jsonl ] && cp measurements/verified.jsonl "$OUT/verified.jsonl"
[ -d out/verify ] && tar -cf "$OUT/verify.tar" out/verify
tail -40 "$log"
exit "${rc:-1}"
