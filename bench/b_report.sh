#!/bin/sh
# gpusizer bench: `gpusizer report` wall time and peak memory (RSS), each
# against a floor of the same scope measured in the same run
# (bench/floor_xlsx.c, which replays the output work and nothing else):
#  1. the default job (sizing.json, every format of the spec) against the
#     whole-job floor: the workbook floor (every cell of this run's
#     gpusizer.xlsx, dumped by bench/xlsx_cells.py and replayed verbatim
#     with libxlsxwriter in constant-memory mode, so deflate gets the same
#     text) plus the text floor (the same Markdown, SVG, HTML, JSON and CSV
#     files written again with fwrite, gzipped as ours where a name ends in
#     .gz); then each format alone (report --format X) against its own
#     floor. Target: the whole job within 1.5x of its floor's wall time.
#  2. a sweep of over 1,000,000 cells (rows x GPU classes), XLSX only,
#     against a workbook floor of the same cell mix (bench/xlsx_mix.py's
#     counts and mean lengths per sheet, synthetic cells: a 300 MB verbatim
#     dump would take minutes to make; synthetic text deflates smaller and
#     faster than ours, 4.3 against 5.0 MB for the default workbook, so this
#     floor is the faster one, the harder target).
#     Target: within 1.5x.
#  3. peak memory flat in rows, for every format: report --format X for a
#     sweep of 2.2x the rows of another (more batch sizes, the same
#     contexts, so the same pages); FAIL when peak RSS grows by more than
#     10% (GS_BENCH_FLAT, default 1.10). A page's size follows the sweep's
#     contexts (a matrix row each), and the HTML writer holds one page at a
#     time (cmark-gfm parses a whole document): a line says how its peak
#     moves from 4 to 10 contexts, with no target.
# Every comparison is of paired runs, interleaved (job, floor, job, floor,
# ...) so that machine noise hits both sides of a pair alike: the figure is
# the median of the pairs' wall-time ratios, printed with its spread, and a
# target is missed only when the median is over it by more than the spread
# (bench/paired.py, the one verdict rule of make bench). Judged comparisons
# take GS_BENCH_PAIRS pairs (default 7), the others and the peak-RSS runs
# GS_BENCH_REPS (default 3); peak RSS is the highest of a side's runs. Exit 1
# when a target is missed.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${GPUSIZER:-$PWD/gpusizer}
PAIRS=${GS_BENCH_PAIRS:-7}
REPS=${GS_BENCH_REPS:-3}
FLAT=${GS_BENCH_FLAT:-1.10}
W=$(mktemp -d "${TMPDIR:-/tmp}/gs-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
FLOOR=$W/floor_xlsx
# shellcheck disable=SC2046
cc -O2 -std=c11 -Wall -Wextra -Ibench bench/floor_xlsx.c bench/floor_text.c \
	$(pkg-config --cflags --libs xlsxwriter zlib) -o "$FLOOR" || exit 1
echo "machine: $(nproc) CPUs; $PAIRS interleaved pairs (job, floor) for a judged figure, $REPS otherwise"

# pair N FILE JOB FLOOR: JOB and FLOOR are command lines (eval'ed), run
# alternately N times under `floor_xlsx --run` (job, floor, job, floor, ...);
# FILE gets one line per pair: "job_wall job_rss floor_wall floor_rss" (s, KiB).
# (sh has no local variables: pair's own are named pair_*.)
pair() {
	pair_i=0
	: >"$2"
	while [ "$pair_i" -lt "$1" ]; do
		pair_j=$(eval "\"\$FLOOR\" --run $3") || return 1
		pair_f=$(eval "\"\$FLOOR\" --run $4") || return 1
		echo "$pair_j $pair_f" >>"$2"
		pair_i=$((pair_i + 1))
	done
}

# once CMD...: runs CMD a first time (it also warms the page cache); its
# output is what the floors replay.
once() { "$@" >/dev/null || { echo "b_report: failed: $*"; exit 1; }; }

# prep OUT DIR [mix]: the floors' inputs from a real output directory OUT:
# DIR/cells (the workbook's cells, when OUT has one), or with "mix" DIR/mix
# (its cell mix) instead, and DIR/src (every other file, a .gz one
# decompressed under the same name).
prep() {
	mkdir -p "$2/src" "$2/floor"
	if [ -f "$1/gpusizer.xlsx" ]; then
		if [ "${3:-}" = mix ]; then
			python3 bench/xlsx_mix.py "$1/gpusizer.xlsx" >"$2/mix" || exit 1
		else
			python3 bench/xlsx_cells.py "$1/gpusizer.xlsx" "$2/cells" || exit 1
		fi
	fi
	(cd "$1" && find . -type f ! -name '*.xlsx') | while IFS= read -r p; do
		mkdir -p "$2/src/${p%/*}"
		case $p in
		*.gz) gzip -dc "$1/$p" >"$2/src/$p" ;;
		*) cp "$1/$p" "$2/src/$p" ;;
		esac
	done
}

# floor_cmd DIR: the floor command line for what prep put in DIR.
floor_cmd() {
	if [ -f "$1/cells" ]; then
		echo "'$FLOOR' job '$1/cells' '$1/floor/gpusizer.xlsx' '$1/src' '$1/floor'"
	else
		echo "'$FLOOR' text '$1/src' '$1/floor'"
	fi
}

# median COLUMN FILE: the median of a column of FILE.
median() {
	awk -v c="$1" '{ print $c }' "$2" | sort -g |
		awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ratio LABEL FILE TARGET (empty: none): the wall-time ratio of pair's runs
# in FILE as bench/paired.py judges it, the median walls, and the peak RSS of
# each side; returns 1 when the target is missed.
ratio() {
	ratio_v=$(awk '{ print $1, $3 }' "$2" | python3 bench/paired.py "$1: wall / floor's wall" \
		${3:+--target "<=" "$3"} --unit x)
	ratio_st=$?
	echo "$ratio_v"
	awk -v jm="$(median 1 "$2")" -v fm="$(median 3 "$2")" '$2 > jr { jr = $2 } $4 > fr { fr = $4 }
		END { printf "    median wall %.2f s vs floor %.2f s; peak RSS %.1f MiB vs floor %.1f MiB = %.2fx\n",
		jm, fm, jr / 1024, fr / 1024, jr / (fr > 0 ? fr : 1) }' "$2"
	return $ratio_st
}

# rows_of DIR: rows of the sweep DIR holds (its sizing.csv or .csv.gz).
rows_of() {
	if [ -f "$1/sizing.csv" ]; then wc -l <"$1/sizing.csv"; else gzip -dc "$1/sizing.csv.gz" | wc -l; fi |
		awk '{ print $1 - 1 }'
}

rc=0
# 1. The default job, every format, then each format alone.
once "$BIN" report --offline --quiet --out "$W/default/out"
prep "$W/default/out" "$W/default"
pair "$PAIRS" "$W/default.runs" "'$BIN' report --offline --quiet --out '$W/default/out'" "$(floor_cmd "$W/default")" || exit 1
formats=$(python3 -c 'import json; print(" ".join(json.load(open("sizing.json"))["formats"]))')
echo "default job: $(rows_of "$W/default/out") rows, formats: $formats; floor: $(tail -1 "$W/default/cells" |
	cut -d' ' -f2) workbook cells replayed verbatim, $(find "$W/default/src" -type f | wc -l) text files, \
$(du -sk "$W/default/src" | cut -f1) KiB before gzip"
ratio "default job (every format)" "$W/default.runs" 1.5 || rc=1
for f in $formats; do
	d=$W/fmt-$f
	once "$BIN" report --offline --quiet --format "$f" --out "$d/out"
	prep "$d/out" "$d"
	pair "$REPS" "$d.runs" "'$BIN' report --offline --quiet --format $f --out '$d/out'" "$(floor_cmd "$d")" || exit 1
	ratio "  --format $f alone (sweep and plan included)" "$d.runs" ""
done

# 2. Over 1,000,000 sweep cells (rows x GPU classes), XLSX only.
BIG="--batches 1,2,3,4,5,6,7,8,12,16 --seqs 128,256,512,1024,2048,4096,8192,16384,32768,65536"
HALF="--batches 1,2,3,4,5,6,7,8,12,16 --seqs 128,512,2048,8192"
d=$W/big
# shellcheck disable=SC2086
once "$BIN" report --offline --quiet --format xlsx --out "$d/out" $BIG
# shellcheck disable=SC2086
once "$BIN" report --offline --quiet --format csv --out "$W/bigcsv" $BIG
rows=$(rows_of "$W/bigcsv")
prep "$d/out" "$d" mix
rm -rf "$d/src" # the workbook floor only
pair "$PAIRS" "$d.runs" "'$BIN' report --offline --quiet --format xlsx --out '$d/out' $BIG" "'$FLOOR' xlsx '$d/mix' '$d/floor/gpusizer.xlsx'" || exit 1
ngpu=$(find gpus -maxdepth 1 -name "*.json" | wc -l)
echo "large sweep: $rows rows x $ngpu GPU classes = $((rows * ngpu)) sweep cells; workbook cells: $(tail -1 "$d/mix" | cut -d' ' -f2)"
[ $((rows * ngpu)) -ge 1000000 ] || { echo "large sweep: under 1,000,000 cells FAIL"; rc=1; }
ratio "large sweep (xlsx)" "$d.runs" 1.5 || rc=1

# 3. Peak memory against rows, per format: two sweeps of the same
#    contexts, MORE with 2.2x the rows of HALF.
MORE="--batches 1,2,3,4,5,6,7,8,12,16,20,24,32,48,64,96,128,192,256,384,512,768 --seqs 128,512,2048,8192"
# shellcheck disable=SC2086
hrows=$("$BIN" report --offline --quiet --format csv --out "$W/halfcsv" $HALF >/dev/null && rows_of "$W/halfcsv")
# shellcheck disable=SC2086
mrows=$("$BIN" report --offline --quiet --format csv --out "$W/morecsv" $MORE >/dev/null && rows_of "$W/morecsv")
# peak FORMAT SWEEP...: highest peak RSS (KiB) of REPS runs.
peak() {
	f=$1; shift; i=0; m=0
	while [ "$i" -lt "$REPS" ]; do
		x=$("$FLOOR" --run "$BIN" report --offline --quiet --format "$f" --out "$W/mem-$f" "$@") || return 1
		m=$(echo "$x $m" | awk '{ print (($2 > $3) ? $2 : $3) }')
		i=$((i + 1))
	done
	echo "$m"
}
for f in md html json csv xlsx; do
	# shellcheck disable=SC2086
	h=$(peak "$f" $HALF) || exit 1
	# shellcheck disable=SC2086
	b=$(peak "$f" $MORE) || exit 1
	if [ "$f" = html ]; then
		# shellcheck disable=SC2086
		c=$(peak "$f" $BIG) || exit 1
		echo "$h $c" | awk '{ printf "peak RSS, --format html, pages of 4 and of 10 contexts: %.1f MiB, %.1f MiB: %.2fx (one page at a time; no target)\n", $1 / 1024, $2 / 1024, $2 / $1 }'
	fi
	if echo "$h $b" | awk -v t="$FLAT" -v hr="$hrows" -v br="$mrows" -v f="$f" '{ g = $2 / $1
		printf "peak RSS, --format %s: %d-row sweep %.1f MiB, %d-row sweep %.1f MiB: %.2fx for %.2fx the rows (flat: <= %sx) %s\n",
		f, hr, $1 / 1024, br, $2 / 1024, g, br / hr, t, (g > t) ? "FAIL: grows with rows" : "flat"; exit (g > t) ? 0 : 1 }'; then
		rc=1
	fi
done
exit $rc
