"""The BPF programs and maps a running vigil holds, read through bpftool
(tests/e2e/kstep_maps.sh, watch_side_maps.sh): by the ids its
descriptors' fdinfo names."""
import glob
import json
import subprocess


def ids(pid, key):
    """the ids under key ("prog_id:", "map_id:") in pid's fdinfo"""
    out = set()
    for f in glob.glob(f"/proc/{pid}/fdinfo/*"):
        try:
            for line in open(f):
                if line.startswith(key):
                    out.add(int(line.split()[1]))
        except OSError:
            pass
    return out


def show(kind, i):
    """bpftool's JSON for prog or map i"""
    return json.loads(subprocess.check_output(
        ["bpftool", kind, "show", "id", str(i), "-j"]))


def progs_of(pid):
    """bpftool's JSON for every program pid holds"""
    return [show("prog", i) for i in ids(pid, "prog_id:")]
