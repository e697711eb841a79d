#!/usr/bin/env bash
# make check: what runs without root and without the kernel's help, in
# well under a minute: the cmocka unit tests (build/tests/test_*) and the
# end-to-end tests of the commands that load nothing into the kernel
# (vigil lint, graph, check). Run as root, it drops to nobody first, so a
# test that needs a privilege fails here rather than passing by luck.
# Ends with "N passed, N failed, N skipped" and the time taken; exits
# non-zero on any failure. `make test` runs all of these and the live
# tests too.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
# the tests neither read nor fill the user's DWARF cache (a test of the
# cache sets its own directory)
export VIGIL_CACHE_DIR=${VIGIL_CACHE_DIR-off}
OFFLINE_E2E=(lint graph offline_check)
# unit tests that load BPF programs (CAP_BPF): not run here, counted as
# skipped; make test runs them as root
declare -A NEEDS_ROOT=([test_objmap_probe_bpf]=1)
start=$(date +%s%N)
passed=0
failed=0
skipped=0

as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	if [ -n "${NEEDS_ROOT[$(basename "$t")]:-}" ]; then
		skipped=$((skipped + 1))
		printf '%-40s skipped: needs root (loads BPF programs)\n' "$(basename "$t")"
		continue
	fi
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP as_user "$t" 2>&1)
	rc=$?
	ok=$(grep -c '^ok ' <<<"$out")
	bad=$(grep -c '^not ok ' <<<"$out")
	[ "$rc" -ne 0 ] && [ "$bad" -eq 0 ] && bad=1
	passed=$((passed + ok))
	failed=$((failed + bad))
	printf '%-40s %d passed, %d failed\n' "$(basename "$t")" "$ok" "$bad"
	[ "$bad" -eq 0 ] || grep -E '^not ok|error|Error' <<<"$out" | head -20 | sed 's/^/    /'
done

for name in "${OFFLINE_E2E[@]}"; do
	out=$(BUILD=$BUILD VIGIL_OFFLINE_ONLY=1 as_user timeout 60 bash "tests/e2e/$name.sh" 2>&1)
	if [ $? -eq 0 ]; then
		passed=$((passed + 1))
		printf '%-40s ok\n' "e2e/$name"
	else
		failed=$((failed + 1))
		printf '%-40s FAILED\n' "e2e/$name"
		tail -25 <<<"$out" | sed 's/^/    /'
	fi
done

ms=$((($(date +%s%N) - start) / 1000000))
echo "$passed passed, $failed failed, $skipped skipped in $((ms / 1000)).$((ms % 1000 / 100)) s"
[ "$failed" -eq 0 ]
