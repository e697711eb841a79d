# vigil's own heap on transparent huge pages (user/cli/main.c): a command
# that monitors starts itself again with glibc's tunable
# glibc.malloc.hugetlb=1, and what it runs gets the environment the user
# gave vigil, to the byte, with or without a tunable of the user's.
# The kernel's own count (AnonHugePages in smaps_rollup) says whether the
# heap is on huge pages; a tunable the user set for hugetlb is left alone.
. "$(dirname "$0")/lib.sh"

for tun in "" "glibc.malloc.check=0" "glibc.malloc.hugetlb=0"; do
	set -- env -i PATH="$PATH" HOME=/root FOO="a b" ${tun:+GLIBC_TUNABLES=$tun}
	"$@" /usr/bin/env >"$TMP/want"
	"$@" "$VIGIL" run specs/lib/double_free.vigil -- /usr/bin/env >"$TMP/got" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "vigil run of env failed (GLIBC_TUNABLES=$tun)"; }
	diff "$TMP/want" "$TMP/got" ||
		fail "the program's environment is not the one vigil was given (GLIBC_TUNABLES=$tun)"
done

# vigil's own environment and heap, while it runs a program that
# allocates for a second or two (the debug information vigil reads as it
# starts grows its heap past 2 MB)
vigil_while_running() {
	"$@" "$VIGIL" run specs/lib/double_free.vigil \
		-- "$TARGETS/malloc_storm" 4000000 >"$TMP/run" 2>&1 &
	VPID=$!
	HUGE=0
	for _ in $(seq 100); do
		sleep 0.1
		[ -r "/proc/$VPID/smaps_rollup" ] || break
		tr '\0' '\n' <"/proc/$VPID/environ" >"$TMP/environ" 2>/dev/null
		COMM=$(cat "/proc/$VPID/comm" 2>/dev/null)
		h=$(awk '/^AnonHugePages:/ { print $2 }' "/proc/$VPID/smaps_rollup" 2>/dev/null)
		[ "${h:-0}" -gt "$HUGE" ] && HUGE=$h
		[ "$HUGE" -gt 0 ] && break
		# (the environment is all a run that cannot show huge pages shows)
		[ "${WAIT_HUGE:-yes}" = no ] && [ -s "$TMP/environ" ] && break
	done
	wait "$VPID" || { cat "$TMP/run"; fail "vigil run of malloc_storm failed"; }
}

# the user's own hugetlb tunable: vigil does not start again
WAIT_HUGE=no vigil_while_running env GLIBC_TUNABLES=glibc.malloc.hugetlb=0
grep -qx 'GLIBC_TUNABLES=glibc.malloc.hugetlb=0' "$TMP/environ" ||
	{ cat "$TMP/environ"; fail "vigil changed the user's own glibc.malloc.hugetlb"; }
grep -q '^VIGIL_REEXEC_TUNABLES=' "$TMP/environ" && fail "vigil started again over the user's hugetlb tunable"

vigil_while_running env
# a vigil under ASan (make test SANITIZE=1) allocates from ASan's heap, not
# glibc's: it does not start again (the binary's own NEEDED entries say)
if readelf -d "$VIGIL" | grep -q 'NEEDED.*libasan'; then
	grep -q '^GLIBC_TUNABLES=' "$TMP/environ" && fail "vigil under ASan asked glibc for huge pages"
	[ "$COMM" = vigil ] || fail "vigil's process is named '$COMM'"
	echo "under ASan: no glibc heap, vigil not started again"
	echo ok
	exit 0
fi
if ! grep -qE '\[(always|madvise)\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	grep -q '^GLIBC_TUNABLES=' "$TMP/environ" && fail "vigil asked for huge pages the kernel does not give"
	skip huge_pages "transparent huge pages are off ($(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1))"
fi
grep -qx 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1' "$TMP/environ" ||
	{ cat "$TMP/environ"; fail "vigil did not start again with glibc.malloc.hugetlb=1"; }
# the process keeps its name (vigil checkpoint and vigil ctl know vigil
# by it): started again by its own path, not /proc/self/exe's
[ "$COMM" = vigil ] || fail "vigil's process is named '$COMM' after it started again"
[ "$HUGE" -gt 0 ] || { cat "$TMP/run"; fail "vigil's heap has no huge page (AnonHugePages 0 kB all along its run)"; }
echo "vigil's heap: $HUGE kB on huge pages"
echo ok
