#!/bin/sh
# `make bench`: runs every bench/b_*.sh; each prints its figures and ratios
# against a baseline measured in the same run.
set -u
cd "$(dirname "$0")/.." || exit 1
rc=0
for b in bench/b_*.sh; do
	[ -e "$b" ] || continue
	echo "== $b"
	sh "$b" || rc=1
done
exit $rc
