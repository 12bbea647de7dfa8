#!/bin/sh
# tools/fresh-debian.sh: the README's set-up on a fresh Debian 12, for real.
#
# Builds a minimal Debian 12 root (mmdebstrap --variant=minbase with git,
# make, build-essential, python3 and ca-certificates: nothing else) from this
# machine's own Debian apt sources, copies a clean clone of this repository's
# HEAD into it (as /root/gpusizer; nothing beside it, as a user's checkout:
# the tests' fixtures are in the repository, and the checks that compare
# them with ../shared print counted SKIPs), then runs exactly the README's
# two commands in a chroot as root: `make report`, then `make check`. Prints how
# long each step took, what tools/deps.sh installed (the root's dpkg list
# before and after), and checks that `make report` left the clone's
# committed files, out/ among them, byte-identical (`git status --porcelain`
# empty). Exits non-zero when any of that fails.
#
# Needs root (mmdebstrap's root mode, chroot, mounts) and Debian's mirror;
# installs mmdebstrap with apt-get when missing. Every mount is made in a
# private mount and PID namespace (unshare), so none is ever visible outside
# and none outlives a step, whatever kills it; the root is removed on exit,
# on failure and on INT/TERM/HUP.
#
#   FRESH_DEBIAN_TMP=DIR   where the root goes (default $TMPDIR or /var/tmp;
#                          needs about 2 GiB)
#   FRESH_DEBIAN_KEEP=1    keep the root afterwards (its path is printed)
#   FRESH_DEBIAN_SHARED=1  copy the shared/ directory beside the repository
#                          into the root too (as /root/shared)
#
# Only committed work is tested: uncommitted changes in the checkout are not
# in the clone (a line says so).
set -eu
prog="fresh-debian"
say() { printf '%s: %s\n' "$prog" "$*"; }
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }

top=$(cd "$(dirname "$0")/.." && pwd -P)
shared_src=$(cd "$top/.." && pwd -P)/shared
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap's root mode, chroot and mounts); run it as root"
command -v git >/dev/null 2>&1 || die "needs git"
head=$(git -C "$top" rev-parse --verify -q HEAD) || die "$top: not a git repository with a commit"
for t in unshare chroot mount; do
	command -v "$t" >/dev/null 2>&1 || die "needs $t (util-linux, mount, coreutils)"
done
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- mmdebstrap
if ! command -v mmdebstrap >/dev/null 2>&1; then
	say "installing mmdebstrap (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null 2>&1 || true
	apt-get install -y -qq --no-install-recommends mmdebstrap gpg debian-archive-keyring >/dev/null ||
		die "cannot install mmdebstrap: apt-get install -y --no-install-recommends mmdebstrap gpg debian-archive-keyring"
fi

# ---- this machine's Debian 12 sources: binary (deb) entries for the suites
# bookworm, bookworm-updates and bookworm-security whose Release file says
# Origin: Debian (or is not downloaded yet); other repositories (a cloud
# SDK's, nodesource's) are left out. One "deb URI SUITE COMPONENTS" line each.
debian_sources() {
	# shellcheck disable=SC2016
	apt-get indextargets --format '$(TARGET_OF) $(REPO_URI) $(RELEASE) $(COMPONENT) $(ORIGIN)' \
		'Identifier: Packages' 2>/dev/null | awk '
	$1 == "deb" && $3 ~ /^bookworm(-updates|-security)?$/ && ($5 == "" || $5 == "Debian") {
		k = $2 " " $3
		if (!(k in comps)) { order[++n] = k; comps[k] = "" }
		if ((" " comps[k] " ") !~ (" " $4 " ")) comps[k] = comps[k] " " $4
	}
	END { for (i = 1; i <= n; i++) print "deb " order[i] comps[order[i]] }'
}
sources=$(debian_sources)
if [ -z "$sources" ]; then
	apt-get update -qq >/dev/null 2>&1 || true
	sources=$(debian_sources)
fi
[ -n "$sources" ] || die "no Debian bookworm entry in this machine's apt sources (/etc/apt/sources.list*)"

# ---- the work directory, and its removal whatever happens
base=${FRESH_DEBIAN_TMP:-${TMPDIR:-/var/tmp}}
mkdir -p "$base"
free_k=$(df -Pk "$base" | awk 'NR == 2 { print $4 }')
[ "${free_k:-0}" -ge 2097152 ] || die "$base: $((${free_k:-0} / 1024)) MiB free, need 2048 (set FRESH_DEBIAN_TMP)"
work=$(mktemp -d "$base/gpusizer-fresh.XXXXXX")
chmod 755 "$work" # apt downloads as _apt
case "$work" in *[!A-Za-z0-9._/-]*) rmdir "$work"; die "$work: unusual characters in the path (set FRESH_DEBIAN_TMP)" ;; esac
root=$work/root
child=""
cleanup() {
	st=$?
	trap - EXIT INT TERM HUP
	if [ -n "$child" ]; then
		kill "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	# Mounts live only in the steps' private namespaces; if one ever showed
	# here, unmount it before removing anything below it.
	awk -v w="$work/" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while IFS= read -r m; do umount -l "$m" 2>/dev/null || true; done
	if [ "${FRESH_DEBIAN_KEEP:-0}" = 1 ]; then
		say "kept the root: $root"
	elif awk -v w="$work/" 'index($5, w) == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		echo "$prog: something is still mounted below $work: left it in place" >&2
		st=1
	else
		rm -rf --one-file-system "$work"
	fi
	exit "$st"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# in_root SCRIPT: runs the shell script as root in the chroot, in
# /root/gpusizer, with a clean environment and no stdin, in its own mount and
# PID namespaces (proc, sysfs, devpts and /dev/shm mounted there only; when
# the step ends, or is killed, the namespaces and every mount go with it).
in_root() {
	# shellcheck disable=SC2016
	unshare --mount --propagation private --pid --fork --kill-child -- sh -c '
		set -e
		r=$1; shift
		mount -t proc proc "$r/proc"
		mount -t sysfs sysfs "$r/sys" 2>/dev/null || mount --rbind /sys "$r/sys"
		if [ -c "$r/dev/null" ] && (: >"$r/dev/null") 2>/dev/null; then # not on a nodev mount
			mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$r/dev/pts"
			mount -t tmpfs -o mode=1777,nosuid,nodev shm "$r/dev/shm"
		else
			mount --rbind /dev "$r/dev"
		fi
		exec chroot "$r" /usr/bin/env -i HOME=/root \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			sh -c "cd /root/gpusizer && $1"
	' sh "$root" "$1" </dev/null &
	child=$!
	rc=0
	wait "$child" || rc=$?
	child=""
	return "$rc"
}
# logged NAME COMMAND: in_root, output shown and kept in $root/tmp/NAME.log.
logged() {
	in_root "{ $2; echo \$? >/tmp/$1.rc; } 2>&1 | tee /tmp/$1.log; exit \$(cat /tmp/$1.rc)"
}
pkgs() { dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${binary:Package}\n' | sort; }
added() { comm -13 "$1" "$2" | tr '\n' ' ' | sed 's/ $//'; }

say "HEAD $head of $top"
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	say "note: the checkout has uncommitted changes; they are not tested (a clean clone of HEAD is)"
say "root: $root"
say "apt sources:"
printf '%s\n' "$sources" | sed 's/^/    /'

# ---- 1. the fresh root
set --
while IFS= read -r l; do set -- "$@" "$l"; done <<EOF
$sources
EOF
t=$(now)
say "mmdebstrap --variant=minbase --include=git,make,build-essential,python3,ca-certificates bookworm"
unshare --mount --propagation private --pid --fork --kill-child -- \
	mmdebstrap --mode=root --variant=minbase --include=git,make,build-essential,python3,ca-certificates \
	bookworm "$root" "$@" </dev/null &
child=$!
rc=0
wait "$child" || rc=$?
child=""
[ "$rc" = 0 ] || die "mmdebstrap failed (exit $rc)"
t_root=$(since "$t")
pkgs >"$work/pkgs.0"
say "root ready: $(wc -l <"$work/pkgs.0") packages, $(du -sm "$root" | cut -f1) MiB, ${t_root} s"

# ---- 2. the clone (and ../shared with FRESH_DEBIAN_SHARED=1)
t=$(now)
git clone -q --no-hardlinks "$top" "$root/root/gpusizer"
git -C "$root/root/gpusizer" checkout -q --detach "$head"
if [ "${FRESH_DEBIAN_SHARED:-0}" != 1 ]; then
	say "no ../shared in the root (FRESH_DEBIAN_SHARED=1 copies it)"
elif [ -d "$shared_src" ]; then
	mkdir "$root/root/shared"
	cp -a "$shared_src/." "$root/root/shared/"
	say "copied $shared_src to /root/shared"
else
	say "note: no $shared_src beside the repository; the root gets none"
fi
t_copy=$(since "$t")

# ---- 3. the README's two commands
fail=""
t=$(now)
say "in the root: make report"
if logged report "make report"; then r_report=ok; else r_report="FAILED (exit $?)"; fail="$fail make-report"; fi
t_report=$(since "$t")
pkgs >"$work/pkgs.1"
if in_root "git status --porcelain" >"$work/status.1"; then
	if [ -s "$work/status.1" ]; then
		r_clean="FAILED: make report changed committed files or left untracked ones:"
		fail="$fail out-changed"
	else
		r_clean="ok (git status --porcelain empty)"
	fi
else
	r_clean="FAILED: git status did not run"; fail="$fail git-status"
fi

t=$(now)
say "in the root: make check"
if logged check "make check"; then r_check=ok; else r_check="FAILED (exit $?)"; fail="$fail make-check"; fi
t_check=$(since "$t")
pkgs >"$work/pkgs.2"
tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$root/tmp/check.log" 2>/dev/null | tail -n 1 || true)

# ---- summary
echo
say "summary (HEAD $head)"
echo "  fresh root (mmdebstrap minbase):  ${t_root} s, $(wc -l <"$work/pkgs.0") packages"
echo "  clone:                            ${t_copy} s"
echo "  make report:                      ${t_report} s, $r_report"
n0=$(wc -l <"$work/pkgs.0"); n1=$(wc -l <"$work/pkgs.1"); n2=$(wc -l <"$work/pkgs.2")
echo "    installed by it (tools/deps.sh): $((n1 - n0)) packages"
echo "      $(added "$work/pkgs.0" "$work/pkgs.1")"
echo "  committed files after make report: $r_clean"
[ ! -s "$work/status.1" ] || sed 's/^/      /' "$work/status.1"
echo "  make check:                       ${t_check} s, $r_check${tally:+ ($tally)}"
echo "    installed by it: $((n2 - n1)) packages"
[ "$n2" = "$n1" ] || echo "      $(added "$work/pkgs.1" "$work/pkgs.2")"
echo "    its SKIP lines (checks that cannot run here; never counted as passes):"
grep '^SKIP ' "$root/tmp/check.log" 2>/dev/null | sed 's/^/      /' || echo "      none"
if [ -n "$fail" ]; then
	say "FAILED:$fail"
	exit 1
fi
say "ok: make report and make check pass on a fresh Debian 12"
