#!/bin/sh
# gpusizer bench: `gpusizer report` wall time and peak memory (RSS) for the
# default job and for a sweep of over 1,000,000 cells (rows x GPU classes),
# each against a floor measured in the same run: bench/floor_xlsx.c, a
# minimal libxlsxwriter program writing the same number of worksheet cells
# as our workbook holds, in constant-memory mode. Target: within 1.5x of the
# floor's wall time, and peak memory that does not grow with the sweep.
# Each figure is the best of GS_BENCH_REPS runs (default 3).
set -u
cd "$(dirname "$0")/.."
BIN=${GPUSIZER:-$PWD/gpusizer}
W=$(mktemp -d "${TMPDIR:-/tmp}/gs-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
cc -O2 -std=c11 -Wall -Wextra bench/floor_xlsx.c $(pkg-config --cflags --libs xlsxwriter) -o "$W/floor_xlsx" || exit 1

# measure LABEL CMD...: prints "LABEL wall_s peak_rss_kib" of CMD alone:
# the best wall time and the highest peak of $REPS runs (machines are noisy).
REPS=${GS_BENCH_REPS:-3}
measure() {
	label=$1; shift
	best=""; rss=0; i=0
	while [ "$i" -lt "$REPS" ]; do
		m=$("$W/floor_xlsx" --run "$@") || return 1
		best=$(echo "$m $best" | awk '{ print ($3 == "" || $1 < $3) ? $1 : $3 }')
		rss=$(echo "$m $rss" | awk '{ print ($2 > $3) ? $2 : $3 }')
		i=$((i + 1))
	done
	echo "$label $best $rss"
}

# cells in a workbook's worksheets
cells() {
	python3 - "$1" <<'PY'
import sys, zipfile
n = 0
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith("xl/worksheets/sheet"):
            with z.open(name) as f:
                tail = b""
                while True:
                    b = f.read(1 << 20)
                    if not b:
                        break
                    n += (tail + b).count(b"<c r=") - tail.count(b"<c r=")
                    tail = b[-8:]
print(n)
PY
}

ratio() { # LABEL JOBLINE FLOORLINE
	echo "$2" "$3" | awk -v l="$1" '{ printf "%s: wall %.2f s vs floor %.2f s = %.2fx (target <= 1.5x); peak RSS %.1f MiB vs floor %.1f MiB = %.2fx\n", l, $2, $5, $2 / ($5 > 0 ? $5 : 1e-9), $3 / 1024, $6 / 1024, $3 / ($6 > 0 ? $6 : 1) }'
}

rc=0
# 1. The default job (sizing.json, every format).
job=$(measure default "$BIN" report --offline --quiet --out "$W/default") || exit 1
if [ -f "$W/default/gpusizer.xlsx" ]; then
	n=$(cells "$W/default/gpusizer.xlsx")
	floor=$(measure floor "$W/floor_xlsx" "$W/floor.xlsx" "$n") || exit 1
	echo "default job (every format): $(($(wc -l <"$W/default/sizing.csv") - 1)) rows; workbook cells: $n (the floor writes only these)"
	ratio "default job" "$job" "$floor"
else
	echo "default job: $job (no xlsx writer built: no floor)"
fi

# 2. Over 1,000,000 sweep cells (rows x GPU classes), XLSX only, and a
#    smaller sweep, to show whether peak memory grows with the sweep.
BIG="--batches 1,2,3,4,5,6,7,8,12,16 --seqs 128,256,512,1024,2048,4096,8192,16384,32768,65536"
HALF="--batches 1,2,3,4,5,6,7,8,12,16 --seqs 128,512,2048,8192"
# shellcheck disable=SC2086
js=$(measure bigjson "$BIN" report --offline --quiet --format json,csv --out "$W/bigjson" $BIG) || exit 1
rows=$(($(wc -l <"$W/bigjson/sizing.csv") - 1))
ngpu=$(ls gpus/*.json | wc -l)
# shellcheck disable=SC2086
big=$(measure big "$BIN" report --offline --quiet --format xlsx --out "$W/big" $BIG) || exit 1
# shellcheck disable=SC2086
half=$(measure half "$BIN" report --offline --quiet --format xlsx --out "$W/half" $HALF) || exit 1
hrows=$("$BIN" report --offline --quiet --format csv --out "$W/halfcsv" $HALF >/dev/null && echo $(($(wc -l <"$W/halfcsv/sizing.csv") - 1)))
nb=$(cells "$W/big/gpusizer.xlsx")
floor=$(measure floor "$W/floor_xlsx" "$W/floor.xlsx" "$nb") || exit 1
echo "large sweep: $rows rows x $ngpu GPU classes = $((rows * ngpu)) sweep cells; workbook cells: $nb"
[ $((rows * ngpu)) -ge 1000000 ] || { echo "large sweep: under 1,000,000 cells"; rc=1; }
ratio "large sweep (xlsx)" "$big" "$floor"
echo "$js" | awk '{ printf "large sweep (json+csv only, no workbook): wall %.2f s, peak RSS %.1f MiB\n", $2, $3 / 1024 }'
echo "$half $big" | awk -v h="$hrows" -v b="$rows" '{ printf "peak RSS: %d-row sweep %.1f MiB, %d-row sweep %.1f MiB: %.2fx for %.2fx the rows (flat if close to 1)\n", h, $3 / 1024, b, $6 / 1024, $6 / $3, b / h }'
echo "$big $floor" | awk '{ exit ($2 / $5 > 1.5) ? 1 : 0 }' || { echo "large sweep: over the 1.5x wall-time target"; rc=1; }
exit $rc
