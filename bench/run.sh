#!/usr/bin/env bash
# bench/run.sh - run vigil's benchmarks (what `make bench` runs).
#
#   bash bench/run.sh            full run, about 10 minutes
#   QUICK=1 bash bench/run.sh    fewer repetitions and gaps, under 2 minutes
#   bash bench/run.sh --only per-event|event-gap|watch|real|overflow|objmap
#
# Needs root and the programs `make bench` builds first (build/bench/loop,
# build/bench/floor, build/bench/recsize, build/bench/wloop, build/bench/wfloor,
# build/bench/armloop, build/bench/allocs_bench, build/bench/runtime.so;
# build/vigil for the vigil rows,
# which are skipped with a message when it is missing). The measuring,
# checking and reporting is in bench/bench.py (python3, standard library).
# Results: build/bench/*.csv, build/bench/summary.md, build/bench/event_gap.png,
# and on a full run docs/perf/event_gap.png. Exit status 0 when every
# measurement succeeded, 1 when one failed, 3 when it could not start.
set -euo pipefail
cd "$(dirname "$0")/.."

args=()
case "${QUICK:-}" in
	""|0) ;;
	*) args+=(--quick) ;;
esac
exec python3 bench/bench.py --build "${BUILD:-build}" "${args[@]}" "$@"
