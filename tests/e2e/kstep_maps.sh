# The kernel tier's step, vg_kstep, is verified from an object of its own
# (build/bpf/kstep.bpf.o) beside the main object's load, and runs on the
# main object's maps: the same maps, not copies (user/probe/split_load.c).
# Checked on the running vigil's programs and maps, in both load paths:
# the early load (vigil run) and the load vg_probe_open does itself
# (vigil watch, which has no early load: session.c).
. "$(dirname "$0")/lib.sh"

cp tests/specs/queue_made.vigil "$TMP/q.vigil"

# the kstep object alone needs no kernel BTF (no CO-RE, no kfunc): libbpf
# loads the kernel's BTF only for an object that has them
bpftool -d prog loadall "$BUILD/bpf/kstep.bpf.o" /sys/fs/bpf/vigil-kstep-$$ \
	>"$TMP/loadall" 2>&1 || { cat "$TMP/loadall"; fail "bpftool cannot load $BUILD/bpf/kstep.bpf.o"; }
rm -rf /sys/fs/bpf/vigil-kstep-$$
grep -q "loading kernel BTF" "$TMP/loadall" &&
	fail "the kstep object reads the kernel's BTF: $(grep -E 'kernel BTF|CO-RE|extern' "$TMP/loadall" | head -5)"

# check_maps PID: vg_kstep of vigil PID runs on the maps its other
# programs use, and is the program they tail-call
check_maps() {
	wait_links "$1"
	python3 - "$1" "$(dirname "$0")" <<'PY' || { cat "$TMP/out"; fail "vg_kstep's maps are not vigil's"; }
import json, subprocess, sys
sys.path.insert(0, sys.argv[2])
from bpf_held import progs_of, show
progs = progs_of(sys.argv[1])
kstep = [p for p in progs if p["name"] == "vg_kstep"]
assert len(kstep) == 1, f"vigil holds {len(kstep)} vg_kstep programs"
kstep = kstep[0]
assert kstep.get("gpl_compatible"), "vg_kstep is not GPL"
others = {i for p in progs if p["name"] != "vg_kstep" for i in p.get("map_ids", [])}
name = {i: show("map", i)["name"] for i in set(kstep["map_ids"]) | others}
byname = {}
for i in others:
    byname.setdefault(name[i], set()).add(i)
# every map vg_kstep uses that the other programs use too is the same map
shared = 0
for i in kstep["map_ids"]:
    if name[i] in byname:
        assert byname[name[i]] == {i}, f"{name[i]}: vg_kstep's is map {i}, the others' {byname[name[i]]}"
        shared += 1
need = {"kstep_args", "kslots", "ev_conf", "events"}
have = {name[i] for i in kstep["map_ids"]}
assert need <= have and any(n.endswith(".bss") for n in have), f"vg_kstep's maps: {sorted(have)}"
assert any(name[i].endswith(".bss") and i in others for i in kstep["map_ids"]), "vg_kstep's .bss is not the others'"
# the step the _k programs tail-call is this one
tail = [i for i, n in name.items() if n == "kstep_tail"]
assert len(tail) == 1, "no kstep_tail map"
dump = json.loads(subprocess.check_output(["bpftool", "map", "dump", "id", str(tail[0]), "-j"]))
assert [e["formatted"]["value"] for e in dump] == [kstep["id"]], f"kstep_tail holds {dump}, not {kstep['id']}"
print(f"vg_kstep (prog {kstep['id']}): {shared} maps shared with the other programs")
PY
}

# vigil run, on queue3 held after its first loop
: >"$TMP/hold"
QUEUE3_HOLD="$TMP/hold" VIGIL_DEBUG=1 "$VIGIL" run --tier=kernel "$TMP/q.vigil" -- \
	"$TARGETS/queue3" --loops 2 >"$TMP/out" 2>&1 &
vpid=$!
LEFT_PIDS+=("$vpid")
check_maps "$vpid"
rm -f "$TMP/hold"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "the BPF object was loaded while the plan was built"
expect_out "vigil: debug: verifier: vg_kstep +[0-9]+ us"
expect_out "slices created=[1-9]"
expect_out "before:queue_pop=[1-9]"

# vigil watch --exe: vg_probe_open's own load, split the same way
VIGIL_DEBUG=1 "$VIGIL" watch --tier=kernel "$TMP/q.vigil" --exe "$TARGETS/queue3" \
	>"$TMP/out" 2>&1 &
vpid=$!
LEFT_PIDS+=("$vpid")
check_maps "$vpid"
"$TARGETS/queue3" >"$TMP/prog.out" || fail "queue3 under vigil watch exited $?"
wait_for "$TMP/out" "slices created=[1-9]|exited" 20 || true
kill -INT "$vpid"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_no_out "was loaded while the plan was built"
expect_out "made: kernel tier"
expect_out "vigil: debug: verifier: vg_kstep +[0-9]+ us"
