#!/bin/sh
# Screenshots of the HTML report in headless Chromium for docs/img/: the
# index and the Llama-3.1-8B page at 1440 and 390 px, taken by the browser
# test (tests/t_html_browser.py) from a one-model sweep of sizing.json.
# Keeps index-1440.png and model-390.png (the README shows the first).
# Usage: tools/screenshots.sh [GPUSIZER]   (default ./gpusizer)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
exe=${1:-$top/gpusizer}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GPUSIZER=$exe GS_SCREENSHOTS_DIR=$tmp python3 "$top/tests/t_html_browser.py"
mkdir -p "$top/docs/img"
for f in index-1440.png model-390.png; do
	[ -f "$tmp/$f" ] || { echo "screenshots: $f not taken (is chromium installed?)" >&2; exit 1; }
	cp "$tmp/$f" "$top/docs/img/html-$f"
done
ls -l "$top/docs/img"/html-*.png
