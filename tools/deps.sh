#!/bin/sh
# Install the Debian -dev packages gpusizer builds against, when missing.
# Used by `make deps` (and so by the README's two commands). Idempotent.
set -eu
need=""
have() { pkg-config --exists "$1" 2>/dev/null; }
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v python3 >/dev/null 2>&1 || need="$need python3"
have libcurl || need="$need libcurl4-openssl-dev"
have libcjson || need="$need libcjson-dev"
have xlsxwriter || need="$need libxlsxwriter-dev"
have libcmark-gfm || need="$need libcmark-gfm-dev"
[ -e /usr/include/cmark-gfm-core-extensions.h ] || need="$need libcmark-gfm-extensions-dev"
for tool in "$@"; do
	case "$tool" in
	valgrind) command -v valgrind >/dev/null 2>&1 || need="$need valgrind" ;;
	clang) command -v clang >/dev/null 2>&1 || need="$need clang" ;;
	fuzz) [ -n "$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] || need="$need libclang-rt-dev" ;;
	esac
done
[ -z "$need" ] && exit 0
echo "deps: installing:$need" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
