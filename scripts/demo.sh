#!/usr/bin/env bash
# `make demo`: run vigil on the bundled example, a bounded queue that one
# producer overflows by skipping the lock. vigil stops the target inside
# queue_push, before the bad push happens, and prints the gdb command.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.."

bold() { if [ -t 1 ]; then printf '\033[1m%s\033[0m\n' "$*"; else printf '%s\n' "$*"; fi; }

bold "== 1. The property (specs/queue_bounds.vigil)"
grep -v '^#' specs/queue_bounds.vigil | sed '/^$/d'
echo
bold "== 2. vigil run specs/queue_bounds.vigil -- $BUILD/targets/queue --bug"
# To a file, not $(...): the stopped target still holds vigil's stdout, so
# a pipe would never see end-of-file.
log=$(mktemp /tmp/vigil-demo.XXXXXX)
"$BUILD/vigil" run specs/queue_bounds.vigil -- "$BUILD/targets/queue" --bug >"$log" 2>&1
rc=$?
out=$(cat "$log")
rm -f "$log"
echo "$out"
echo "(vigil exit status: $rc)"
pid=$(sed -nE 's/.*target pid ([0-9]+) is left stopped.*/\1/p' <<<"$out" | head -1)
if [ -z "$pid" ]; then
	echo "demo: vigil did not leave a stopped target" >&2
	exit 1
fi
echo
bold "== 3. The target is stopped (state $(awk '{sub(/.*\) /,""); print substr($0,1,1)}' /proc/$pid/stat)) inside queue_push. What gdb sees:"
cmd=$(grep -A1 'Debug it with' <<<"$out" | tail -1)
eval "$cmd -q -batch -ex bt -ex 'print q->count' -ex 'print q->cap' -ex detach" 2>&1 |
	grep -E '^#|^\$|^vigil' | head -20
echo
if [ -t 0 ] && [ -t 1 ]; then
	read -r -p "Attach gdb to pid $pid now? [y/N] " ans
	if [ "$ans" = y ] || [ "$ans" = Y ]; then
		eval "$cmd"
	fi
fi
bold "== 4. Ending the demo target (pid $pid)"
kill -KILL "$pid" 2>/dev/null
exit 0
