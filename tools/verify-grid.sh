#!/bin/sh
# Run `gpusizer verify` on a grid of rows on the local NVIDIA GPU and append
# every measured result to measurements/verified.jsonl (the store; commit it
# afterwards with the versions it records). Needs ./gpusizer built, an NVIDIA
# driver, and python3 with torch + transformers (+ peft for LoRA rows).
#
#   sh tools/verify-grid.sh            # the quick grid (a few minutes on an RTX 4090 / H100)
#   GRID=full sh tools/verify-grid.sh  # more sequence lengths and settings
#   VERIFY_ARGS="--no-store" sh tools/verify-grid.sh   # extra flags for every run
#   DEADLINE=480 sh tools/verify-grid.sh  # start no row after 480 s (device time is short)
#   TIMEOUT=240 ...                       # seconds per row (default 600)
#
# Each row prints its verify summary; a closing table lists each row's exit
# status (0 within tolerance, 12 outside, 13 harness skipped/failed). The
# exit status is 0 when every row produced a result (0 or 12), else 1.
set -u
cd "$(dirname "$0")/.."
G=${GPUSIZER:-./gpusizer}
GRID=${GRID:-quick}
TIMEOUT=${TIMEOUT:-600}
EXTRA=${VERIFY_ARGS:-}
DEADLINE=${DEADLINE:-0}
start=$(date +%s)
log=$(mktemp); trap 'rm -f "$log"' EXIT

python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available(), "transformers", transformers.__version__)' ||
	{ echo "verify-grid: python3 lacks torch/transformers: nothing measured" >&2; exit 1; }

rows_quick="
Qwen/Qwen2.5-0.5B --method full --precision bf16 --seq 512
Qwen/Qwen2.5-0.5B --method full --precision bf16 --seq 2048
Qwen/Qwen2.5-0.5B --method full --precision bf16 --seq 2048 --grad-ckpt
Qwen/Qwen2.5-0.5B --method full --precision amp-bf16 --seq 1024
Qwen/Qwen2.5-0.5B --method full --precision bf16 --seq 1024 --attn eager
Qwen/Qwen2.5-0.5B --method lora --seq 2048
Qwen/Qwen2.5-0.5B --method inference --seq 2048
meta-llama/Llama-3.2-1B --method full --precision bf16 --seq 2048
meta-llama/Llama-3.2-1B --method lora --seq 4096 --grad-ckpt
meta-llama/Llama-3.2-1B --method inference --seq 8192
meta-llama/Llama-3.2-1B --method inference --seq 8192 --logits all
meta-llama/Llama-3.2-3B --method lora --seq 2048
meta-llama/Llama-3.2-3B --method full --precision bf16 --seq 512 --grad-ckpt
"
rows_full="$rows_quick
Qwen/Qwen2.5-0.5B --method full --precision bf16 --seq 8192 --grad-ckpt
Qwen/Qwen2.5-0.5B --method full --precision amp-bf16 --seq 4096 --grad-ckpt
Qwen/Qwen2.5-0.5B --method lora --seq 8192 --grad-ckpt
Qwen/Qwen2.5-0.5B --method qlora --seq 2048
Qwen/Qwen2.5-0.5B --method inference --seq 8192 --attn eager
meta-llama/Llama-3.2-1B --method full --precision amp-bf16 --seq 1024
meta-llama/Llama-3.2-1B --method full --precision bf16 --seq 2048 --attn eager
meta-llama/Llama-3.2-1B --method lora --seq 2048 --lora-targets all-linear
meta-llama/Llama-3.2-1B --method qlora --seq 4096 --grad-ckpt
meta-llama/Llama-3.2-3B --method full --precision bf16 --seq 2048 --grad-ckpt
meta-llama/Llama-3.2-3B --method lora --seq 8192 --grad-ckpt
meta-llama/Llama-3.2-3B --method inference --seq 8192
"
[ "$GRID" = full ] && rows=$rows_full || rows=$rows_quick

bad=0
echo "$rows" | while IFS= read -r row; do
	[ -n "$row" ] || continue
	if [ "$DEADLINE" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$DEADLINE" ]; then
		echo "== not run (past DEADLINE=$DEADLINE s): $row"
		echo "deadline $row" >>"$log"
		continue
	fi
	echo "== $row"
	# shellcheck disable=SC2086
	$G verify $row --offline --warmup 1 --steps 1 --timeout "$TIMEOUT" $EXTRA
	echo "$? $row" >>"$log"
done
echo "== summary (exit status, row)"
cat "$log"
while read -r rc _; do
	case "$rc" in 0|12) ;; *) bad=1 ;; esac
done <"$log"
exit "$bad"
