# vigil's gdb extension: gdb's breakpoints on probed and patched
# addresses (sourced by vigil.py, in its namespace: _live, _catch_deleted
# and vigil_fast.py's vigil_fast_patch_at are its).
import gdb


# A gdb breakpoint on an address a uprobe traps at never fires (the uprobe
# takes the trap), and removing it may write back the probe's int3 as the
# "original" byte or erase it. So no gdb breakpoint goes there: a user
# breakpoint's location on a probed address is disabled, and an internal
# breakpoint one instruction further (same function, same frame, the
# probe has run) stands in for it, stopping as "Breakpoint N".

_probed = {}            # address -> "file+0xoff"
_shadows = {}           # user breakpoint number -> [internal breakpoints]


def _load_probes(live):
    _probed.clear()
    try:
        probes = live.call("probes", [])["data"]["probes"]
        maps = open("/proc/%d/maps" % live.pid).read().splitlines()
    except (gdb.GdbError, OSError, KeyError):
        return
    for line in maps:
        f = line.split(None, 5)
        if len(f) < 6:
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        off = int(f[2], 16)
        for p in probes:
            if p["path"] == f[5] and off <= p["offset"] < off + hi - lo:
                _probed[lo + p["offset"] - off] = "%s+0x%x" % (p["path"], p["offset"])


class _Shadow(gdb.Breakpoint):
    def __init__(self, addr, user, why="its address is probed; stopped on the next instruction"):
        super().__init__("*0x%x" % addr, internal=True)
        self.user = user
        self.why = why
        self.silent = True      # _announce says it as the user's breakpoint

    def stop(self):
        u = self.user
        if not u.is_valid() or not u.enabled:
            return False
        if u.condition:
            try:
                if not bool(gdb.parse_and_eval(u.condition)):
                    return False
            except gdb.error:
                pass
        return True


def _announce(ev):
    for b in getattr(ev, "breakpoints", []):
        if isinstance(b, _Shadow) and b.user.is_valid():
            where = gdb.execute("frame 0", to_string=True)
            if where.startswith("#0"):
                where = where[2:].lstrip()
            u = b.user
            gdb.write("\n%s %d, %s" % ("Temporary breakpoint" if u.temporary
                                        else "Breakpoint", u.number, where))
            gdb.write("(vigil: %s)\n" % b.why)
            if u.temporary:     # hit: gone, as gdb deletes its own
                gdb.post_event(lambda: u.is_valid() and u.delete())
            return


def _next_insn(addr):
    # the instruction's length from the file's bytes: memory has the
    # probe's int3 there (vigil's command file sets this for x/i too)
    arch = gdb.selected_inferior().architecture()
    old = gdb.parameter("trust-readonly-sections")
    gdb.execute("set trust-readonly-sections on", to_string=True)
    try:
        return addr + arch.disassemble(addr)[0]["length"]
    finally:
        if not old:
            gdb.execute("set trust-readonly-sections off", to_string=True)


_shadowing = False


def _shadow(bp):
    global _shadowing
    if _shadowing or _live is None or not bp.is_valid() or \
            bp.type != gdb.BP_BREAKPOINT or bp.number <= 0 or not bp.visible:
        return
    _shadowing = True       # disabling a location modifies bp again
    try:
        _shadow_now(bp)
    finally:
        _shadowing = False


def _shadow_now(bp):
    for old in _shadows.pop(bp.number, []):
        if old.is_valid():
            old.delete()
    made = []
    for loc in getattr(bp, "locations", []):
        p = None if loc.address is None else vigil_fast_patch_at(int(loc.address))
        if p is not None:
            # gdb must never write into the patch's jmp (vigil_fast.py)
            if loc.enabled:
                loc.enabled = False
            made.append(_Shadow(p["fn"] + p["patch_len"], bp, why=(
                "%s's first %d bytes are the in-process tier's patch; stopped "
                "after them, the call recorded: vigil patches" % (p["name"], p["patch_len"]))))
            continue
        if loc.address is None or int(loc.address) not in _probed:
            continue
        if loc.enabled:
            loc.enabled = False     # gdb must never write at the probe
        made.append(_Shadow(_next_insn(int(loc.address)), bp))
    if made:
        _shadows[bp.number] = made


def _bp_deleted(bp):
    for old in _shadows.pop(bp.number, []):
        if old.is_valid():
            old.delete()


def _watch_breakpoints():
    gdb.events.breakpoint_created.connect(_shadow)
    gdb.events.breakpoint_modified.connect(_shadow)
    gdb.events.breakpoint_deleted.connect(_bp_deleted)
    gdb.events.breakpoint_deleted.connect(_catch_deleted)
    gdb.events.stop.connect(_announce)
    for bp in gdb.breakpoints():
        _shadow(bp)


