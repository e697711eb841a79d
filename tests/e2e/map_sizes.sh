# A preallocated map costs its whole size when the load makes it: the
# stack map (4,096 traces) only for a run whose events may take a stack,
# the calls' page filter (65,536 pages) only for a spec with calls checked
# against watched blocks; other runs get one entry of each
# (user/probe/probe_config.c). The early load predicts the same from the
# spec, so it is still the one taken. Checked on the running vigil's maps.
. "$(dirname "$0")/lib.sh"

cp tests/specs/queue_made.vigil "$TMP/q.vigil"
# the same, with a backtrace when a queue is popped
cp "$TMP/q.vigil" "$TMP/bt.vigil"
echo 'on enter live: backtrace' >>"$TMP/bt.vigil"

# sizes PID: "NAME=MAX_ENTRIES" of vigil PID's stacks and watched_pages
sizes() {
	wait_links "$1"
	python3 - "$1" <<'PY'
import glob, json, subprocess, sys
ids = set()
for f in glob.glob(f"/proc/{sys.argv[1]}/fdinfo/*"):
    try:
        for line in open(f):
            if line.startswith("map_id:"):
                ids.add(int(line.split()[1]))
    except OSError:
        pass
for i in sorted(ids):
    m = json.loads(subprocess.check_output(["bpftool", "map", "show", "id", str(i), "-j"]))
    if m["name"] in ("stacks", "watched_pages"):
        print(f"{m['name']}={m['max_entries']}")
PY
}

# run_held OPTS... -- SPEC: vigil on queue3 held after its first loop;
# the maps' sizes in $TMP/sizes, vigil's output in $TMP/out
run_held() {
	: >"$TMP/hold"
	QUEUE3_HOLD="$TMP/hold" VIGIL_DEBUG=1 "$VIGIL" run "$@" -- \
		"$TARGETS/queue3" --loops 2 >"$TMP/out" 2>&1 &
	local vpid=$!
	LEFT_PIDS+=("$vpid")
	sizes "$vpid" | sort >"$TMP/sizes"
	rm -f "$TMP/hold"
	wait "$vpid"
	RC=$?
	echo "== vigil run $*: $(tr '\n' ' ' <"$TMP/sizes")"
	[ "$RC" -eq 0 ] || { grep -v '^libbpf: ' "$TMP/out"; fail "vigil run $*: exit $RC"; }
}

# no stack, no watched block: one entry each, and the early load taken
run_held "$TMP/q.vigil"
[ "$(cat "$TMP/sizes")" = "$(printf 'stacks=1\nwatched_pages=1')" ] ||
	fail "sizes without stacks or calls into watched blocks: $(cat "$TMP/sizes")"
grep -q "vigil: debug: the BPF object was loaded while the plan was built" "$TMP/out" ||
	fail "the early load was not taken: $(grep 'vigil: debug: the plan' "$TMP/out")"

# a `backtrace` reaction: the stack map whole, still the early load
run_held "$TMP/bt.vigil"
grep -qx "stacks=4096" "$TMP/sizes" || fail "a backtrace reaction: $(cat "$TMP/sizes")"
grep -qx "watched_pages=1" "$TMP/sizes" || fail "a backtrace reaction: $(cat "$TMP/sizes")"
grep -q "vigil: debug: the BPF object was loaded while the plan was built" "$TMP/out" ||
	fail "backtrace: the early load was not taken: $(grep 'vigil: debug: the plan' "$TMP/out")"

# --stacks: every event's stack
run_held --stacks "$TMP/q.vigil"
grep -qx "stacks=4096" "$TMP/sizes" || fail "--stacks: $(cat "$TMP/sizes")"
grep -q "vigil: debug: the BPF object was loaded while the plan was built" "$TMP/out" ||
	fail "--stacks: the early load was not taken: $(grep 'vigil: debug: the plan' "$TMP/out")"
echo PASS
