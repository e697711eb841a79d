# vigil's gdb extension, part two: the real callers of functions with an
# `after` probe (sourced by vigil.py, in its namespace: _live is its).
#
# When such a function is entered, the kernel replaces its return address
# on the stack (the "slot") with the address of its uretprobe trampoline
# (the [uprobes] page, 0x7fffffffe000 on x86-64) and keeps the real one in
# the thread's pending returns. gdb unwinding through the slot sees the
# trampoline: `bt` stops there, `up` goes there, and `finish` would plant
# its breakpoint in the [uprobes] page.
#
# So while gdb has the process stopped, the slots hold the real return
# addresses (vigil reads the pending returns from the kernel: `returns` on
# the control socket), and everything gdb does with frames is right: bt,
# up, frame, info frame, finish (its breakpoint goes at the real caller).
# Before a thread runs again its slots must hold the trampoline's address
# again, or its return would skip the uretprobe and the `after` event
# would be lost. gdb has no Python hook between "the command computed its
# breakpoints" and "the thread runs" (gdb.events.cont comes after the
# resume), so each thread whose slots were changed gets a SIGSTOP queued:
# the moment gdb resumes it, before it runs one instruction, it stops, the
# catchpoint's condition ($_vigil_stop) puts the trampoline back, and gdb
# resumes it silently with the command (finish, next, continue) going on.
# detach, quit and vigil's checkpoint put them back first (and SIGCONT
# drops the queued SIGSTOPs); if gdb dies, the queued SIGSTOP holds the
# thread and vigil puts them back before it resumes the program.
import ctypes
import os
import signal

import gdb

_SYS_tgkill = 234       # x86-64

_swapped = {}           # tid -> {slot: real return address} written now
_gated = set()          # tids with our SIGSTOP queued
_real = {}              # slot -> real return address (the last answer)
_tramp = [0]            # the trampoline's address (the [uprobes] page)
_libc = ctypes.CDLL(None, use_errno=True)


def _word(addr):
    inf = gdb.selected_inferior()
    return int.from_bytes(bytes(inf.read_memory(addr, 8)), "little")


def _put(addr, v):
    gdb.selected_inferior().write_memory(addr, v.to_bytes(8, "little"))


def _stop_pending(tid):
    """Has tid a SIGSTOP pending (tid None: the process, one sent to it
    as a whole)? gdb stops running threads with SIGSTOP
    and drops a late one as its own when the thread stopped for another
    reason first (linux-nat's "delayed SIGSTOP"): a gate queued on top of
    it would merge with it and be dropped with it, and the thread would
    run with the real address in its slot. Such a thread keeps the
    trampoline's address this time."""
    path = "/proc/%d/status" % _live.pid if tid is None else \
        "/proc/%d/task/%d/status" % (_live.pid, tid)
    key = "ShdPnd:" if tid is None else "SigPnd:"
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return bool(int(line.split()[1], 16) >> (signal.SIGSTOP - 1) & 1)
    except (OSError, ValueError):
        pass
    return False


def _refresh():
    """Ask vigil for the pending returns; put the real ones in the slots
    that hold the trampoline's address."""
    if _live is None:
        return
    try:
        r = _live.call("returns", [])
    except gdb.GdbError:
        return
    if not r.get("ok"):
        return
    d = r.get("data", {})
    _tramp[0] = d.get("trampoline", 0)
    # the in-process tier's return stubs too (vigil_fast.py), each its own
    pending = [dict(p, trampoline=_tramp[0]) for p in d.get("returns", [])]
    pending += vigil_fast_returns(_live)
    _real.clear()
    for p in pending:
        _real[p["slot"]] = p["ret"]
    if not pending and not _swapped:
        return      # (no frame made: the unwinders have nothing to see)
    changed = False
    here = gdb.selected_thread()
    sp = int(gdb.newest_frame().read_register("rsp")) if here else 0
    for p in pending:
        tid, slot, ret, tramp = p["tid"], p["slot"], p["ret"], p["trampoline"]
        if not tramp:
            continue
        if here and tid == here.ptid[1] and slot < sp:
            continue        # returned already: stopped in the trampoline
        if tid not in _swapped and _stop_pending(tid):
            continue        # gdb's own SIGSTOP: ours would merge with it
        try:
            if _word(slot) != tramp:
                continue
            _put(slot, ret)
        except gdb.MemoryError:
            continue
        _swapped.setdefault(tid, {})[slot] = (ret, tramp)
        changed = True
    # stops the thread as soon as gdb resumes it (see above); queued again
    # at every stop, for all threads still changed: gdb's own SIGSTOPs
    # (stopping the other threads of an all-stop) merge with a pending one
    for tid in _swapped:
        if not _stop_pending(tid):
            _libc.syscall(_SYS_tgkill, _live.pid, tid, signal.SIGSTOP)
        _gated.add(tid)
    if changed:
        gdb.invalidate_cached_frames()


def _put_back(tid):
    """The trampoline's address back in tid's slots."""
    for slot, (ret, tramp) in _swapped.pop(tid, {}).items():
        try:
            if _word(slot) == ret:
                _put(slot, tramp)
        except gdb.MemoryError:
            pass
    gdb.invalidate_cached_frames()


def vigil_returns_gate(tid):
    """From $_vigil_stop: a SIGSTOP of tid may be our gate."""
    if tid in _gated:
        _gated.discard(tid)
        _put_back(tid)


def vigil_returns_put_back_all():
    """Before gdb lets go of the process (detach, quit, checkpoint)."""
    for tid in list(_swapped):
        _put_back(tid)
    if _gated and _live is not None:
        _gated.clear()
        # drops every queued SIGSTOP (the kernel flushes pending stop
        # signals when SIGCONT is sent); gdb passes the SIGCONT silently.
        # One sent to the whole process (a checkpoint's or a restore's,
        # to hold it in a group stop once gdb lets go) is sent again.
        held = _stop_pending(None)
        try:
            os.kill(_live.pid, signal.SIGCONT)
            if held:
                os.kill(_live.pid, signal.SIGSTOP)
        except ProcessLookupError:
            pass


def _on_stop(ev):
    _refresh()


def _on_exit(*_):
    if _live is not None:
        try:
            vigil_returns_put_back_all()
        except gdb.error:
            pass


def vigil_returns_step_out(cmd):
    """After `next` or `step`: stepping off a function's last line stopped
    in the trampoline (gdb stops in code with no name when `next`
    leaves a function). Go on through it, so that the `after` event is
    seen, to the caller, then to a line's start as `cmd` would."""
    if _live is None or not _tramp[0] or gdb.selected_thread() is None:
        return
    off = int(gdb.newest_frame().pc()) - _tramp[0]
    if off not in _PUSHED:
        return
    gdb.write("(vigil: through the uretprobe trampoline, back to the caller)\n")
    gdb.execute("finish", to_string=True)
    f = gdb.newest_frame()
    sal = f.find_sal()
    if sal.symtab is not None and sal.pc != int(f.pc()):
        gdb.execute(cmd)    # mid-line in the caller: on to a line's start


# --- the trampoline itself ---------------------------------------------
# `next` or `step` off a function's last line returns into the trampoline
# (the slot held its address again by then): gdb steps out of a function
# with no name to its caller, which this unwinder gives from the pending
# returns: before the trampoline's pushes, the slot is just below sp.
# (After its uretprobe system call, at +0xd, vigil.py's unwinder reads the
# real address that the kernel left on the stack.)
_PUSHED = {0: 0, 1: 1, 2: 2, 4: 3, 0xb: 3}     # offset -> words pushed


try:
    from gdb.unwinder import Unwinder, register_unwinder

    class _FrameId:
        def __init__(self, sp, pc):
            self.sp = sp
            self.pc = pc

    class _PendingReturnUnwinder(Unwinder):
        def __init__(self):
            super().__init__("vigil-pending-return")

        def __call__(self, pending):
            if _live is None or not _tramp[0]:
                return None
            pc = int(pending.read_register("rip"))
            off = pc - _tramp[0]
            if off not in _PUSHED:
                return None
            sp = pending.read_register("rsp")
            after = int(sp) + 8 * _PUSHED[off]     # sp once back in the caller
            ret = _real.get(after - 8)
            if ret is None:
                return None
            info = pending.create_unwind_info(_FrameId(sp, pending.read_register("rip")))
            rip_t = pending.read_register("rip").type
            info.add_saved_register("rip", gdb.Value(ret).cast(rip_t))
            info.add_saved_register("rsp", gdb.Value(after).cast(sp.type))
            info.add_saved_register("rbp", pending.read_register("rbp"))
            return info

    register_unwinder(None, _PendingReturnUnwinder(), replace=True)
except ImportError:
    pass


gdb.events.stop.connect(_on_stop)
if hasattr(gdb.events, "gdb_exiting"):     # gdb 12 and later
    gdb.events.gdb_exiting.connect(_on_exit)
gdb.execute("define hook-detach\npython vigil_returns_put_back_all()\nend", to_string=True)
for _c in ("next", "step"):
    gdb.execute("define hookpost-%s\npython vigil_returns_step_out(\"%s\")\nend" % (_c, _c),
                to_string=True)
