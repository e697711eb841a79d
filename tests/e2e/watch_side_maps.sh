# Without the kernel tier's step, the watchpoint program vg_watch is
# verified beside the main object's load, from a second copy of the main
# object (user/probe/split_load.c), and runs on the main object's maps:
# the same maps, not copies. A copy with maps of its own would look its
# breakpoints up in a watch_ev vigil never writes (no hit would be seen)
# and count into counters nobody reads. Checked on the running vigil's
# programs and maps: each map name vigil holds is one map, and vg_watch's
# watch_ev and .bss are among them.
. "$(dirname "$0")/lib.sh"

if ! has_debug_regs; then
	# vigil says it is blind to the stores first
	run_vigil run specs/lib/use_after_free.vigil -- "$TARGETS/uaf" --bug
	expect_rc 0
	expect_blind
	skip debug_regs "$WHY"
fi

: >"$TMP/hold"
QUEUE3_HOLD="$TMP/hold" VIGIL_DEBUG=1 "$VIGIL" run specs/lib/use_after_free.vigil -- \
	"$TARGETS/queue3" --loops 2 >"$TMP/out" 2>&1 &
vpid=$!
LEFT_PIDS+=("$vpid")
wait_links "$vpid"
python3 - "$vpid" "$(dirname "$0")" <<'PY' || { cat "$TMP/out"; fail "vg_watch's maps are not vigil's"; }
import sys
sys.path.insert(0, sys.argv[2])
from bpf_held import ids, progs_of, show
pid = sys.argv[1]
progs = progs_of(pid)
watch = [p for p in progs if p["name"] == "vg_watch"]
assert len(watch) == 1, f"vigil holds {len(watch)} vg_watch programs"
watch = watch[0]
# loaded beside the main object: by an object of its own, with a BTF of
# its own (the main object's programs share theirs)
main_btf = {p.get("btf_id") for p in progs if p["name"] != "vg_watch"}
assert watch.get("btf_id") not in main_btf, "vg_watch was loaded by the main object, not beside it"
maps = {i: show("map", i)["name"] for i in ids(pid, "map_id:")}
for p in progs:
    for i in p.get("map_ids", []):
        maps.setdefault(i, show("map", i)["name"])
byname = {}
for i, n in maps.items():
    byname.setdefault(n, set()).add(i)
twice = {n: sorted(s) for n, s in byname.items() if len(s) > 1}
assert not twice, f"maps made twice: {twice}"
have = {maps[i] for i in watch["map_ids"]}
need = {"watch_ev", "ev_conf", "events", "counters"}
assert need <= have and any(n.endswith(".bss") for n in have), f"vg_watch's maps: {sorted(have)}"
others = {i for p in progs if p["name"] != "vg_watch" for i in p.get("map_ids", [])}
assert any(maps[i].endswith(".bss") and i in others for i in watch["map_ids"]), "vg_watch's .bss is not the others'"
print(f"vg_watch (prog {watch['id']}): {len(watch['map_ids'])} maps, none made twice")
PY
rm -f "$TMP/hold"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "vigil: debug: verifier: vg_watch +[0-9]+ us"
expect_no_out "vigil: debug: verifier: vg_kstep"
