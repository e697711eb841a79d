# The DWARF cache: `vigil lint --binary git` with zlib and mutex specs
# prints the same plan cold (empty cache), warm, with the cache off, from
# a corrupt cache file and with an unwritable cache directory; the warm
# run does not open libc's separate debug file (libc6-dbg's), the cold
# one does and fills the cache.
. "$(dirname "$0")/lib.sh"

GIT=$(command -v git) || fail "git is not installed"
command -v strace >/dev/null || fail "strace is not installed (scripts/setup.sh)"
LIBC=$(ldd "$GIT" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$LIBC" ] || fail "cannot find the libc of $GIT"
BID=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
DEBUG=/usr/lib/debug/.build-id/${BID:0:2}/${BID:2}.debug
[ -f "$DEBUG" ] || fail "$LIBC has no debug file $DEBUG: install libc6-dbg (scripts/setup.sh)"
SPECS=(specs/lib/zlib.vigil specs/lib/mutex.vigil)
export VIGIL_CACHE_DIR=$TMP/cache
CACHE=$VIGIL_CACHE_DIR/dwarf/$BID.protos

# lint_traced NAME: the plan in $TMP/NAME.out, the files opened in
# $TMP/NAME.trace. LeakSanitizer cannot stop the world under ptrace (the
# sanitized build's leak check fails there): traced runs go without it;
# the untraced runs at the end keep it.
lint_traced() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=openat -o "$TMP/$1.trace" \
		"$VIGIL" lint --binary "$GIT" "${SPECS[@]}" >"$TMP/$1.out" 2>&1
	RC=$?
	cp "$TMP/$1.out" "$TMP/out"
	expect_rc 0
}
opened() {
	grep -qF "\"$2\"" "$TMP/$1.trace"
}

lint_traced cold
# libc's DWARF types the mutex probes
expect_out "^    m: pthread_mutex_t \* in %rdi$"
opened cold "$DEBUG" || fail "the cold run did not read $DEBUG"
[ -s "$CACHE" ] || fail "the cold run left no cache file $CACHE"

lint_traced warm
cmp "$TMP/cold.out" "$TMP/warm.out" || fail "the warm plan differs from the cold one"
! opened warm "$DEBUG" || fail "the warm run opened $DEBUG"
opened warm "$CACHE" || fail "the warm run did not read $CACHE"

VIGIL_CACHE_DIR=off lint_traced off
cmp "$TMP/cold.out" "$TMP/off.out" || fail "the plan without the cache differs"
opened off "$DEBUG" || fail "with the cache off, $DEBUG was not read"
! grep -q "$TMP/cache" "$TMP/off.trace" || fail "with the cache off, the cache was read"

# a corrupt cache file is not trusted, and is rewritten
head -c 2000 /dev/urandom >"$CACHE"
cp "$CACHE" "$TMP/garbage"
lint_traced corrupt
cmp "$TMP/cold.out" "$TMP/corrupt.out" || fail "the plan from a corrupt cache differs"
opened corrupt "$DEBUG" || fail "a corrupt cache file was trusted"
! cmp -s "$CACHE" "$TMP/garbage" || fail "the corrupt cache file was not rewritten"
lint_traced rewritten
! opened rewritten "$DEBUG" || fail "the rewritten cache did not answer"

# an unwritable cache directory is silent
VIGIL_CACHE_DIR=/proc/vigil-no-cache lint_traced unwritable
cmp "$TMP/cold.out" "$TMP/unwritable.out" || fail "an unwritable cache directory changed the output"

# untraced (the sanitized build's leak check on): cold, then warm
rm -rf "$VIGIL_CACHE_DIR"
for run in cold2 warm2; do
	run_vigil lint --binary "$GIT" "${SPECS[@]}"
	expect_rc 0
	cp "$TMP/out" "$TMP/$run.out"
	cmp "$TMP/cold.out" "$TMP/$run.out" || fail "the untraced $run plan differs"
done
[ -s "$CACHE" ] || fail "the untraced cold run left no cache file $CACHE"
echo "PASS"
