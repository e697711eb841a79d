#!/bin/bash
# bench/reuse_bench.sh [REPS] - what use_after_free costs a program that
# frees a block and gets it back at once (tcache), at a pace: each round
# is a free that arms a watchpoint (the thread holds until vigil has
# armed it), a malloc that hands the block back (released) and writes
# into it (the breakpoint, not yet disarmed, fires: it must stop nothing),
# then a 1 ms sleep, as a server between requests
# (tests/targets/uafreuse.c --pace). Rows: native, `vigil run`, and
# `vigil attach` to it running; with BASE=DIR, the same two of the build
# in DIR too, interleaved (A B A B). Prints each row's median cost of a
# round beyond the sleep and native's, over REPS runs of 2,000 rounds.
# Timing: run it alone (flock /tmp/vigil-timing.lock).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
REPS=${1:-5}
ROUNDS=2000
SPEC=specs/lib/use_after_free.vigil
PROG=$(realpath "$BUILD/targets/uafreuse")
OUT=$(mktemp -d /tmp/vigil-reuse.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

one() {	# ROW DIR: prints the round's cost
	local row=$1 dir=$2 pid
	case $row in
	native) "$PROG" --rounds $ROUNDS --pace 1000 >"$OUT/o" ;;
	run) (cd "$dir" && build/vigil run $SPEC -- "$PROG" --rounds $ROUNDS --pace 1000) \
		>"$OUT/o" 2>"$OUT/e" ;;
	attach)
		"$PROG" --rounds $ROUNDS --pace 1000 >"$OUT/o" &
		pid=$!
		sleep 0.3
		(cd "$dir" && timeout 60 build/vigil attach -p $pid $SPEC) 2>"$OUT/e" >/dev/null &
		wait $pid
		wait ;;
	esac
	sed -nE 's/^uafreuse: ([0-9.]+) us a round.*/\1/p' "$OUT/o"
}

rows=("native ." "run $PWD" "attach $PWD")
[ -n "${BASE:-}" ] && rows+=("run $BASE" "attach $BASE")
declare -A got
for rep in $(seq "$REPS"); do
	for r in "${rows[@]}"; do
		v=$(one $r)
		[ -n "$v" ] || { echo "reuse_bench: $r printed no figure" >&2; cat "$OUT/e" >&2; exit 1; }
		got[$r]+="$v "
	done
done
med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
nat=$(echo ${got[native .]} | med)
printf '%-40s %12s %12s\n' row "us a round" "beyond native"
for r in "${rows[@]}"; do
	m=$(echo ${got[$r]} | med)
	printf '%-40s %12s %12s\n' "$r" "$m" "$(awk -v a="$m" -v b="$nat" 'BEGIN{printf "%.1f", a-b}')"
done
