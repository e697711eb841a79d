#!/usr/bin/env bash
# Runs every test: the cmocka unit tests (build/tests/test_*) and the
# end-to-end tests (tests/e2e/*.sh, which run build/vigil on real targets).
# Ends with the line "N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
# the tests neither read nor fill the user's DWARF cache (a test of the
# cache sets its own directory)
export VIGIL_CACHE_DIR=${VIGIL_CACHE_DIR-off}
LOGS=$BUILD/test-logs
mkdir -p "$LOGS"
passed=0
failed=0
failures=()
skipped=()
# what vigil says where the debug registers do not fire
# (user/session/watchset_plan.c, after user/probe/watch.h's self-test)
NO_REGS="debug registers do not fire"
no_regs=()

# Unit tests: cmocka's TAP output gives one line per test.
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1)
	rc=$?
	echo "$out" >"$LOGS/$name.log"
	ok=$(grep -c '^ok ' <<<"$out")
	bad=$(grep -c '^not ok ' <<<"$out")
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		bad=1	# crashed before reporting
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
	printf '%-40s %d passed, %d failed\n' "$name" "$ok" "$bad"
	if [ "$bad" -ne 0 ]; then
		failures+=("$name")
		grep -E '^not ok|error|Error' <<<"$out" | head -20 | sed 's/^/    /'
	fi
done

# End-to-end tests: one script each; exit status 0 = pass.
for t in tests/e2e/*.sh; do
	case "$t" in */lib.sh) continue ;; esac
	name=$(basename "$t" .sh)
	start=$(date +%s%N)
	BUILD=$BUILD timeout 300 bash "$t" >"$LOGS/e2e-$name.log" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	secs=$((ms / 1000)).$((ms % 1000 / 100))
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf '%-40s ok (%ss)\n' "e2e/$name" "$secs"
	elif [ "$rc" -eq 77 ]; then	# lib.sh's skip: not for this kernel
		skipped+=("e2e/$name")
		printf '%-40s skipped (%s)\n' "e2e/$name" "$(grep -m1 '^SKIP: ' "$LOGS/e2e-$name.log" | cut -c7-)"
	else
		failed=$((failed + 1))
		failures+=("e2e/$name")
		printf '%-40s FAILED (exit %d, %ss)\n' "e2e/$name" "$rc" "$secs"
		# a cause that lies with the machine is said near the top of
		# the log, out of the tail's reach
		if why=$(grep -m1 -E "$NO_REGS" "$LOGS/e2e-$name.log"); then
			echo "    machine: $why"
			no_regs+=("e2e/$name")
		fi
		tail -25 "$LOGS/e2e-$name.log" | sed 's/^/    /'
	fi
done

# No test may leave a target behind, stopped or running. Only processes
# started from this checkout count (their cwd is here): other checkouts on
# the same machine may be running their own tests.
here=$(pwd -P)
left=$(ps -eo pid=,stat=,args= | grep -E "$BUILD/targets/|build/bench/loop" | grep -v grep |
	while read -r pid rest; do
		[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$here" ] && echo "$pid $rest"
	done)
if [ -n "$left" ]; then
	failed=$((failed + 1))
	failures+=("leftover-processes")
	echo "leftover processes after the tests:"
	echo "$left" | sed 's/^/    /'
	echo "$left" | awk '{print $1}' | xargs -r kill -KILL 2>/dev/null
fi

[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]} (logs in $LOGS/)"
[ ${#no_regs[@]} -gt 0 ] &&
	echo "of which ran where the debug registers do not fire (see tests/e2e/debug_regs.sh's log): ${no_regs[*]}"
[ ${#skipped[@]} -gt 0 ] && echo "skipped on this kernel: ${skipped[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
