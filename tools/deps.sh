#!/bin/sh
# Install the Debian packages that gpusizer's build and tests need, when
# missing. Used by `make deps` (and so by the README's two commands, `make
# report` and `make check`); `tools/deps.sh valgrind clang fuzz apps` adds the
# tools of `make valgrind`, `make sanitize`, `make fuzz` and `make
# check-apps` (the applications its tests drive). Idempotent.
#
# Nothing missing: prints nothing, exits 0. Something missing: as root, runs
# apt-get (one "installing" line on stderr, apt's output only on failure);
# as another user, through `sudo -n` (never a password prompt); without root
# or a usable sudo, prints one line naming the command to run as root and
# exits 1. Exits 1 too when the install fails or leaves something missing.
#
# What is checked, and why:
#   build: cc (gcc), make, pkg-config; the pkg-config modules libcurl,
#     libcjson, xlsxwriter, libcmark-gfm and zlib (src/report/xlsx.c includes
#     zlib.h; xlsxwriter.pc links -lz), and cmark-gfm-core-extensions.h
#     (libcmark-gfm-extensions-dev ships no .pc file).
#   tests: python3 (tests/*.py), cc (tests/t_verify.py builds a stand-in
#     NVML), chattr (tests/t_write_failures.py, as root). Everything else the
#     tests use is in the Python standard library or Essential packages.
#   apps (make check-apps): ssconvert (gnumeric), soffice
#     (libreoffice-calc-nogui) and pdftotext (poppler-utils) for
#     tests/t_xlsx_apps.py; chromium for tests/t_html_browser.py.
set -eu
prog="gpusizer deps"
need=""
add() {
	case " $need " in *" $1 "*) ;; *) need="${need:+$need }$1" ;; esac
}
tool() { command -v "$1" >/dev/null 2>&1; }
# have MODULE PACKAGE...: the pkg-config module exists; without pkg-config
# (it is missing itself) ask dpkg whether one of the PACKAGEs is installed.
have() {
	if tool pkg-config; then
		pkg-config --exists "$1" 2>/dev/null
		return
	fi
	shift
	for p in "$@"; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != installed ] || return 0
	done
	return 1
}
check() {
	need=""
	tool cc || add gcc
	tool make || add make
	tool pkg-config || add pkg-config
	tool python3 || add python3
	tool chattr || add e2fsprogs
	have libcurl libcurl4-openssl-dev libcurl4-gnutls-dev libcurl4-nss-dev || add libcurl4-openssl-dev
	have libcjson libcjson-dev || add libcjson-dev
	have xlsxwriter libxlsxwriter-dev || add libxlsxwriter-dev
	have libcmark-gfm libcmark-gfm-dev || add libcmark-gfm-dev
	[ -e /usr/include/cmark-gfm-core-extensions.h ] || add libcmark-gfm-extensions-dev
	have zlib zlib1g-dev || add zlib1g-dev
	for t in $extra; do
		case "$t" in
		valgrind) tool valgrind || add valgrind ;;
		clang) tool clang || add clang ;;
		fuzz)
			# shellcheck disable=SC2012
			[ -n "$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
				add libclang-rt-dev
			;;
		apps)
			tool ssconvert || add gnumeric
			tool soffice || add libreoffice-calc-nogui
			tool pdftotext || add poppler-utils
			tool chromium || add chromium
			;;
		*) echo "$prog: unknown extra '$t' (known: valgrind clang fuzz apps)" >&2; exit 2 ;;
		esac
	done
}
extra="$*"
check
[ -z "$need" ] && exit 0

install="apt-get install -y --no-install-recommends $need"
if ! tool apt-get; then
	echo "$prog: missing: $need (Debian package names), and there is no apt-get here: install their equivalents" >&2
	exit 1
fi
as=""
if [ "$(id -u)" != 0 ]; then
	if ! tool sudo; then
		echo "$prog: missing Debian packages; run as root: apt-get update && $install" >&2
		exit 1
	fi
	if ! sudo -n true >/dev/null 2>&1; then
		echo "$prog: missing Debian packages and sudo needs a password; run as root: apt-get update && $install" >&2
		exit 1
	fi
	as="sudo -n"
fi
echo "$prog: installing: $need" >&2
# apt's output, shown only when it fails (not kept where mktemp cannot write)
log=$(mktemp "${TMPDIR:-/tmp}/gpusizer-deps.XXXXXX" 2>/dev/null) || log=/dev/null
trap '[ "$log" = /dev/null ] || rm -f "$log"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# A failed update (no network) can still install from the lists already there.
$as env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$log" 2>&1 || true
# shellcheck disable=SC2086
if ! $as env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >>"$log" 2>&1; then
	tail -n 20 "$log" >&2
	echo "$prog: apt-get failed (its last lines above); to retry as root: apt-get update && $install" >&2
	exit 1
fi
check
if [ -n "$need" ]; then
	echo "$prog: still missing after apt-get: $need" >&2
	exit 1
fi
exit 0
