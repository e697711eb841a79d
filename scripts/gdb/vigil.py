# vigil's gdb extension: `vigil status` shows, inside the gdb session vigil
# handed over, the violation that stopped the process: the property, the
# slice, the state, the variables, and the evidence (the slice's last
# steps, each with thread, time, values and the user stack at that step).
#
# vigil's gdb command file sources this and points $vigil_report at the
# JSON vigil wrote for the violation (RUNDIR/violation-PID.json). By hand:
#   (gdb) source scripts/gdb/vigil.py
#   (gdb) set $vigil_report = "/tmp/vigil-0/violation-1234.json"
#   (gdb) vigil status
import json

import gdb


def _report_path():
    v = gdb.convenience_variable("vigil_report")
    if v is None:
        raise gdb.GdbError("vigil: no report loaded: set $vigil_report = \"FILE\" "
                           "(vigil's gdb command file does this)")
    return v.string()


def _named(value, name):
    # issue 24: a pointer vigil could name, "0x55... (&A)"
    return "%s (%s)" % (value, name) if name else value


def _event(ev):
    e = ev["event"]
    names = e.get("names", {})
    args = ", ".join(_named(a, names.get(str(i)))
                     for i, a in enumerate(e.get("args", [])))
    text = "%s %s(%s)" % (e["kind"], e["name"], args) if e["name"] else \
        "%s(%s)" % (e["kind"], args)
    if "ret" in e:
        text += " returned %s" % _named(e["ret"], names.get("ret"))
    return text


def _kv(d, names=None):
    names = names or {}
    return " ".join("%s=%s" % (k, _named(v, names.get(k)))
                    for k, v in d.items()) or "(the one instance)"


class VigilPrefix(gdb.Command):
    """vigil's commands: vigil status."""

    def __init__(self):
        super().__init__("vigil", gdb.COMMAND_USER, prefix=True)


class VigilStatus(gdb.Command):
    """Show the violation vigil stopped this process at, with its evidence."""

    def __init__(self):
        super().__init__("vigil status", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        path = _report_path()
        try:
            with open(path) as f:
                v = json.loads(f.readline())
        except (OSError, ValueError) as e:
            raise gdb.GdbError("vigil: cannot read %s: %s" % (path, e))
        out = []
        out.append("property  %s" % v["property"])
        out.append("slice     %s" % _kv(v["slice"], v.get("names")))
        out.append("state     %s -> %s (%s)" % (v.get("from", "?"), v["state"], v["verdict"]))
        if v.get("vars"):
            out.append("vars      %s" % _kv(v["vars"], v.get("names")))
        out.append("event     %s in tid %s" % (_event(v), v["tid"]))
        for i, fr in enumerate(v.get("stack", [])):
            out.append("          %s %s" % ("at" if i == 0 else "  ", fr))
        ev = v.get("evidence", [])
        if ev:
            t0 = ev[0]["time_ns"]
            out.append("evidence  the last %d steps of this slice, oldest first:" % len(ev))
            for s in ev:
                out.append("  %+.6fs tid %s  %s  %s -> %s" % (
                    (s["time_ns"] - t0) / 1e9, s["tid"], _event(s), s["from"], s["to"]))
                for i, fr in enumerate(s.get("stack", [])):
                    out.append("      %s %s" % ("at" if i == 0 else "  ", fr))
        gdb.write("\n".join(out) + "\n")


VigilPrefix()
VigilStatus()
