#!/bin/sh
# Build .device/: gpusizer with every shared library it needs beside it
# (.device/lib, found through DT_RPATH=$ORIGIN/lib, which child processes
# such as the python harness do not inherit), for a machine that has none
# of the -dev packages and no network: the GPU machine the device tool lends
# (see measurements/README.md, "Running the grid on a lent GPU"). glibc
# itself is not bundled: the binary needs the glibc it was built with or a
# newer one. Prints the bundle's size; exits 1 if a library would still come
# from the system.
set -eu
cd "$(dirname "$0")/.."
B=build/device
D=.device
rm -f "$B/gpusizer"  # relink: the rpath is a link flag
make --no-print-directory BUILD=$B LDFLAGS='-Wl,--disable-new-dtags -Wl,-rpath,\$$ORIGIN/lib' $B/gpusizer
rm -rf "$D"
mkdir -p "$D/lib"
cp "$B/gpusizer" "$D/gpusizer"
# every library ldd resolves, except glibc's own
ldd "$B/gpusizer" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r name path; do
	case "$name" in
	libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|ld-linux*) ;;
	*) cp -L "$path" "$D/lib/$name" ;;
	esac
done
strip --strip-unneeded "$D/gpusizer" "$D"/lib/*
# check: with the system's library path ignored, each bundled name resolves into .device/lib
bad=$(env -u LD_LIBRARY_PATH ldd "$D/gpusizer" | awk -v d="$PWD/$D/lib/" '
	$2 == "=>" && $1 !~ /^(libc|libm|libdl|libpthread|librt|libresolv)\.so/ && index($3, d) != 1 { print $1 " -> " $3 }')
if [ -n "$bad" ]; then
	echo "device-bundle: not from the bundle:" >&2
	echo "$bad" >&2
	exit 1
fi
"$D/gpusizer" --version >/dev/null
echo "device-bundle: $D: $(ls "$D/lib" | wc -l) libraries, $(du -sh "$D" | cut -f1)"
