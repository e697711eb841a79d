#!/usr/bin/env bash
# Runs every test: the cmocka unit tests (build/tests/test_*) and the
# end-to-end tests (tests/e2e/*.sh, which run build/vigil on real targets).
# Ends with the line "N passed, N failed, N skipped"; exits non-zero on any
# failure.
#
#   tests/run.sh [NAME...]: only those end-to-end tests (scripts/vm.sh's
#   guest runs its lane so), no unit tests
# $TEST_LOGS: where each test's log goes ($BUILD/test-logs)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ONLY=("$@")
# the tests neither read nor fill the user's DWARF cache (a test of the
# cache sets its own directory)
export VIGIL_CACHE_DIR=${VIGIL_CACHE_DIR-off}
LOGS=${TEST_LOGS:-$BUILD/test-logs}
mkdir -p "$LOGS"
passed=0
failed=0
failures=()
skipped=0
# A test that needs a machine feature exits 77 where the machine lacks it,
# its last line "SKIP: FEATURE: reason". Such a skip counts only when this
# runner's own oracle for FEATURE (not vigil) says the feature is missing;
# a skip on a machine that has it, or for a feature with no oracle, fails.
declare -A lacks=()
if "$BUILD/targets/debug_regs_oracle" >/dev/null 2>&1; then
	lacks[debug_regs]=no
else
	lacks[debug_regs]=yes
fi
# the kernel tier's timer and holds of other processes: kfuncs of 6.13
# and 6.2, as the kernel's own symbol table lists them
if grep -q ' bpf_send_signal_task$' /proc/kallsyms &&
	grep -q ' bpf_task_from_pid$' /proc/kallsyms; then
	lacks[kernel_stops_others]=no
else
	lacks[kernel_stops_others]=yes
fi
# debug registers that report each hit once: QEMU's software emulation
# reports an old hit again at the next debug exception (a single step)
if "$BUILD/targets/debug_regs_oracle" stale >/dev/null 2>&1; then
	lacks[sound_debug_regs]=yes
else
	lacks[sound_debug_regs]=no
fi
# transparent huge pages for anonymous memory, as the kernel offers them
if grep -qE '\[(always|madvise)\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	lacks[huge_pages]=no
else
	lacks[huge_pages]=yes
fi
declare -A skip_why=()

# Unit tests: cmocka's TAP output gives one line per test.
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && [ ${#ONLY[@]} -eq 0 ] || continue
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
if [ ${#ONLY[@]} -eq 0 ]; then
	e2e=(tests/e2e/*.sh)
else	# (a name with no script fails: bash cannot open it)
	e2e=()
	for n in "${ONLY[@]}"; do e2e+=("tests/e2e/${n%.sh}.sh"); done
fi
for t in "${e2e[@]}"; do
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
	elif [ "$rc" -eq 77 ] &&
		last=$(tail -n 1 "$LOGS/e2e-$name.log") &&
		[[ $last =~ ^SKIP:\ ([a-z_]+):\ (.+)$ ]] &&
		[ "${lacks[${BASH_REMATCH[1]}]:-}" = yes ]; then
		skipped=$((skipped + 1))
		printf '%-40s skipped (%ss): needs %s\n' "e2e/$name" "$secs" "${BASH_REMATCH[1]}"
		skip_why[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	else
		[ "$rc" -eq 77 ] &&
			echo "    a skip this machine does not explain: $(tail -n 1 "$LOGS/e2e-$name.log")"
		failed=$((failed + 1))
		failures+=("e2e/$name")
		printf '%-40s FAILED (exit %d, %ss)\n' "e2e/$name" "$rc" "$secs"
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
for f in "${!skip_why[@]}"; do
	echo "skipped for want of $f: ${skip_why[$f]}"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
