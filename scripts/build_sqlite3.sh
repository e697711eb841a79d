#!/usr/bin/env bash
# scripts/build_sqlite3.sh - the sqlite3 shell from Debian 12's own sqlite3
# source package, built twice by the same commands: plain, and with
# AddressSanitizer (gcc -fsanitize=address). bench/overflow_bench.py
# (`make bench`, `bench.py --only overflow`) measures heap_overflow.vigil
# beside ASan on it; the plain build is ASan's fair baseline (the Debian
# binary is built with other flags, as a shared library).
#
#   bash scripts/build_sqlite3.sh      as root; the last line of its output
#                                      is the directory holding sqlite3-plain
#                                      and sqlite3-asan
#
# The source comes through apt's source mechanism with the deb-src state
# bench/memcheck_suite.py uses for valgrind's (its own sources file and
# lists directory, so the system's apt never sees it), into $CACHE; every
# file is checked against the SHA256 of the signed Sources index, and
# dpkg-source applies Debian's patches. The amalgamation (sqlite3.c,
# shell.c) is made by the source's own Tcl scripts: tclsh, from the tcl
# package scripts/setup.sh installs. Both binaries get the SQLITE_* options
# of Debian's debian/rules (its CFLAGS, read through make), -O2 -g.
#
# Idempotent: when both binaries exist for this source version and these
# flags, it prints their directory and does nothing else (no network).
# Only `make bench` needs it, never `make test`.
set -Eeuo pipefail
export LC_ALL=C

CACHE=${VIGIL_SQLITE3_CACHE:-/var/cache/vigil/sqlite3}
# (the deb-src state may be put elsewhere: to try the script without the network)
SOURCES=${VIGIL_DEBSRC_SOURCES:-/etc/vigil/bookworm-src.sources}
LISTS=${VIGIL_DEBSRC_LISTS:-/var/lib/vigil/apt-lists-bookworm-src}
APT=(-o Dir::Etc::SourceList="$SOURCES" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$LISTS"
     -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
# Both builds alike but for the sanitizer; frame pointers for ASan's stacks
# in both, so that the plain build differs by ASan alone.
CFLAGS_COMMON="-O2 -g -fno-strict-aliasing -fno-omit-frame-pointer"
CFLAGS_ASAN="-fsanitize=address"
LIBS="-lm -ldl -lpthread"
LOG=$CACHE/build.log
STEP=start

step() { STEP=$1; echo "build_sqlite3: $1" >&2; }
die()  { echo "build_sqlite3: FAILED: $STEP: $*" >&2; exit 1; }
on_err() {
	local rc=$?
	echo "build_sqlite3: FAILED: $STEP: '$BASH_COMMAND' exited with status $rc" >&2
	[ -s "$LOG" ] && { echo "build_sqlite3: last lines of $LOG:" >&2; tail -n 15 "$LOG" >&2; }
	exit "$rc"
}
trap on_err ERR

[ "$(id -u)" -eq 0 ] || die "must run as root (it writes $CACHE and apt's source state)"
for tool in apt-get apt-cache dpkg-source gcc make; do
	command -v "$tool" >/dev/null || die "$tool missing: run scripts/setup.sh"
done
command -v tclsh >/dev/null ||
	die "tclsh missing (sqlite's amalgamation is made by Tcl scripts): run scripts/setup.sh, which installs tcl"
mkdir -p "$CACHE"
# one build at a time (two `make bench` at once would share $CACHE)
exec 9>"$CACHE/.lock"
flock 9

# the sqlite3 source package's record: its version and the SHA256 of its files
showsrc() { apt-cache "${APT[@]}" showsrc sqlite3 2>>"$LOG" | awk '
	/^Version:/ && !v { v = $2; print "version", v }
	/^$/ { if (v) exit }
	/^Checksums-Sha256:/ { f = 1; next }
	f && /^ / { print "file", $1, $3; next }
	{ f = 0 }'; }

ensure_lists() {
	[ -n "$(showsrc)" ] && return 0
	step "fetch Debian 12's source index (separate apt state in $LISTS)"
	mkdir -p "$(dirname "$SOURCES")" "$LISTS/partial"
	if [ ! -f "$SOURCES" ]; then
		cat >"$SOURCES" <<'EOF'
# Written by vigil's scripts/build_sqlite3.sh (bench/memcheck_suite.py writes
# the same). Deliberately NOT in sources.list.d: only used with
# -o Dir::Etc::SourceList=<this file> to fetch source packages for benchmarks.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	fi
	local said=$CACHE/apt-update.log
	apt-get "${APT[@]}" update >"$said" 2>&1 ||
		die "apt-get update of the deb-src index failed: $(grep -E '^(W|E): ' "$said" | head -n 1) (see $said)"
	# apt-get update exits 0 when it could not fetch: its warning says why
	[ -n "$(showsrc)" ] || die "no sqlite3 source package in Debian 12's deb-src index;" \
		"apt said: $(grep -E '^(W|E): ' "$said" | head -n 1 || true) (no network? see $said)"
}

: >"$LOG"
ensure_lists
record=$(showsrc)
version=$(awk '$1 == "version" { print $2 }' <<<"$record")
[ -n "$version" ] || die "no version in apt-cache showsrc sqlite3"
OUT=$CACHE/$version
# what the binaries were built from: another version or other flags rebuild
stamp="$version|$CFLAGS_COMMON|$CFLAGS_ASAN|$LIBS"
if [ -x "$OUT/sqlite3-plain" ] && [ -x "$OUT/sqlite3-asan" ] &&
	[ "$(cat "$OUT/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$OUT"
	exit 0
fi

cd "$CACHE"
files_ok() {
	local sha name
	while read -r _ sha name; do
		echo "$sha  $name" | sha256sum -c --quiet - >/dev/null 2>&1 || return 1
	done < <(grep '^file ' <<<"$record")
}
if ! files_ok; then
	step "download the sqlite3 $version source package into $CACHE"
	apt-get "${APT[@]}" source --download-only sqlite3 >>"$LOG" 2>&1 ||
		die "apt-get source sqlite3 failed: no network or no deb.debian.org? (see $LOG)"
	files_ok || die "the sqlite3 source files are missing or fail their SHA256 after apt-get source (see $LOG)"
fi
dsc=$(awk '$1 == "file" && $3 ~ /\.dsc$/ { print $3 }' <<<"$record")
[ -n "$dsc" ] || die "no .dsc in the sqlite3 source record"

step "unpack $dsc with Debian's patches, make the amalgamation (~30 s)"
rm -rf "$OUT" && mkdir -p "$OUT"
dpkg-source -x "$dsc" "$OUT/src" >>"$LOG" 2>&1
cd "$OUT/src"
# the SQLITE_* options of Debian's own build, as debian/rules sets them
# shellcheck disable=SC2016 # $(CFLAGS) is make's, not the shell's
defs=$(make -s -f debian/rules --eval 'vg-cflags: ; @echo $(CFLAGS)' vg-cflags 2>>"$LOG" |
	tr ' ' '\n' | grep '^-DSQLITE_' | tr '\n' ' ') || true
[ -n "$defs" ] || die "no -DSQLITE_ option in debian/rules' CFLAGS"
echo "$defs" >"$OUT/defines"
./configure --disable-tcl >>"$LOG" 2>&1
make -j"$(nproc)" sqlite3.c shell.c >>"$LOG" 2>&1

step "build sqlite3-plain and sqlite3-asan (~2 min)"
# shellcheck disable=SC2086
gcc $CFLAGS_COMMON $defs shell.c sqlite3.c -o "$OUT/sqlite3-plain" $LIBS >>"$LOG" 2>&1
# shellcheck disable=SC2086
gcc $CFLAGS_COMMON $CFLAGS_ASAN $defs shell.c sqlite3.c -o "$OUT/sqlite3-asan" $LIBS >>"$LOG" 2>&1
echo 'SELECT 40 + 2;' | "$OUT/sqlite3-plain" | grep -qx 42 || die "sqlite3-plain does not run"
echo 'SELECT 40 + 2;' | ASAN_OPTIONS=detect_leaks=0 "$OUT/sqlite3-asan" | grep -qx 42 ||
	die "sqlite3-asan does not run"
# (not nm | grep -q: grep's early exit would fail nm, and pipefail the test)
[[ $(nm "$OUT/sqlite3-asan") == *__asan_init* ]] || die "sqlite3-asan has no ASan runtime"
# the binaries are what is kept: not the tree, nor the orig tarballs
# dpkg-source copied beside it
rm -rf "$OUT/src" "$OUT"/*.orig*.tar.*
echo "$stamp" >"$OUT/stamp"
echo "$OUT"
