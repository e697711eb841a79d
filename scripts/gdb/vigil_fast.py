# vigil's gdb extension, part three: the functions the in-process tier
# patched (vigil run/attach --fast; sourced by vigil.py, in its namespace:
# _live, _Cmd and _FrameId are its).
#
# A patched function's first bytes (patch_len of them, whole
# instructions) are a `jmp` to its entry stub, which calls vigil's agent
# in the target and goes on at the relocated first instructions, which
# jump back to fn + patch_len. vigil says where all of that is
# (`patches` on the control socket). Here:
#
#  - x/i and disassemble: a disassembler (gdb 13's gdb.disassembler)
#    reads the file's original bytes for a patched range, whatever
#    trust-readonly-sections says, and marks those instructions;
#  - gdb's breakpoints keep off the patch (vigil.py's _shadow_now): a
#    breakpoint there would be written into the jmp, and removed with
#    the file's byte in it; it stands at fn + patch_len instead;
#  - a thread the entry stub stopped at a violation is put back on the
#    call (the stub's frame has its registers): vigil cannot, gdb is the
#    tracer. `bt` then shows the call, nothing of the function run;
#  - the return addresses the agent swapped for its return stub are
#    given to vigil_returns.py as the uretprobes' are (fast-returns), so
#    bt, up and finish see the real callers;
#  - an unwinder for a thread inside a stub (stepi into the jmp), so
#    that bt goes on to the caller there too.
import gdb

_patches = []           # vigil's `patches` answer, one dict per function
_agent = [0, 0]         # the agent's code in the target: address, length


def vigil_fast_load(live):
    """At the join: what vigil patched (nothing when the tier is off)."""
    del _patches[:]
    try:
        r = live.call("patches", [])
    except gdb.GdbError:
        return
    if r.get("ok"):
        d = r.get("data", {})
        _patches.extend(d.get("patches", []))
        _agent[:] = [d.get("agent", 0), d.get("agent_len", 0)]
    if _patches and _disassembler_on:
        # gdb keeps a breakpoint's "original" byte as read, and with
        # this on it reads the file's: one it places on a patch (advance,
        # until, tbreak at a function) would write the file's byte into
        # the jmp when it steps over or removes it. x/i and disassemble
        # show the file's bytes through the disassembler below instead.
        gdb.execute("set trust-readonly-sections off", to_string=True)


def vigil_fast_patch_at(addr):
    """The patch whose bytes hold addr, or None."""
    for p in _patches:
        if p["fn"] <= addr < p["fn"] + p["patch_len"]:
            return p
    return None


def vigil_fast_returns(live):
    """The return addresses the agent holds for its return stubs."""
    if not any(p.get("returns") for p in _patches):
        return []
    try:
        r = live.call("fast-returns", [])
    except gdb.GdbError:
        return []
    return r.get("data", {}).get("returns", []) if r.get("ok") else []


_REGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9", "rax", "r10", "r11", "rsp")


def vigil_fast_rewind(tid):
    """A thread the entry stub stopped (tgkill(.., SIGSTOP) at the
    stub's `stopped` pc, the frame of the call at %rsp: the flags, then
    include/vigil_fast.h's struct vg_fast_regs) goes back on the call:
    those registers, the pc on the function's first byte (the patch's
    jmp, into the stub again, which knows the call: vigil is told)."""
    if not _patches or gdb.selected_thread() is None:
        return False
    frame = gdb.newest_frame()
    pc = int(frame.read_register("rip"))
    p = next((p for p in _patches if p["stopped"] == pc), None)
    if p is None:
        return False
    sp = int(frame.read_register("rsp"))
    mem = bytes(gdb.selected_inferior().read_memory(sp, 8 * 11))
    words = [int.from_bytes(mem[i:i + 8], "little") for i in range(0, len(mem), 8)]
    for name, v in zip(_REGS, words[1:]):
        gdb.execute("set $%s = %d" % (name, v), to_string=True)
    gdb.execute("set $eflags = %d" % (words[0] & ~0x100), to_string=True)  # no TF
    gdb.execute("set $orig_rax = -1", to_string=True)     # no syscall restart
    gdb.execute("set $pc = %d" % p["fn"], to_string=True)
    try:
        _live.call("fast-rewound", [tid, p["hook"], words[10]])
    except gdb.GdbError as e:
        gdb.write("%s\n" % e)
    gdb.invalidate_cached_frames()
    return True


# --- x/i and disassemble ------------------------------------------------

_disassembler_on = False
try:
    from gdb.disassembler import (Disassembler, DisassemblerResult,
                                  builtin_disassemble, register_disassembler)

    def _from_file(info):
        """The instruction as the file has it: gdb reads a read-only
        section's bytes from the file with trust-readonly-sections on
        (builtin_disassemble's memory_source is not used by gdb 13.1)."""
        gdb.set_parameter("trust-readonly-sections", True)
        try:
            return builtin_disassemble(info)
        finally:
            gdb.set_parameter("trust-readonly-sections", False)

    class _PatchDisassembler(Disassembler):
        def __init__(self):
            super().__init__("vigil-patches")

        def __call__(self, info):
            if not _patches:
                return None     # gdb's own (trust-readonly-sections)
            p = vigil_fast_patch_at(info.address)
            if p is None and not any(a in _probed for a in
                                     range(info.address, info.address + 16)):
                return None
            r = _from_file(info)
            if p is None:
                return r
            if info.address == p["fn"]:
                note = "\t# vigil: patched, runs jmp 0x%x (in-process tier)" % p["entry"]
            else:
                note = "\t# vigil: patched"
            return DisassemblerResult(r.length, r.string + note)

    register_disassembler(_PatchDisassembler(), None)
    _disassembler_on = True
except ImportError:     # gdb before 13: trust-readonly-sections alone
    pass


# --- a thread inside a stub -------------------------------------------------
# The entry stub's words pushed at each offset (user/fast/tramp.c): push
# %rsp, nine registers, the flags, the call; the way on pops them again.
# %rsp + 8 * pushed is then the function's entry %rsp, the return
# address there. Offsets past the last listed keep its count.
_ENTRY_PUSHED = [(0, 0), (1, 1), (3, 2), (5, 3), (6, 4), (8, 5), (10, 6),
                 (11, 7), (12, 8), (13, 9), (14, 10), (15, 11)]


_ENTRY_ON = [(0, 11), (7, 10), (8, 9), (9, 8), (10, 7), (11, 6), (13, 5),
             (15, 4), (16, 3), (18, 2), (20, 1), (25, 0)]
_ENTRY_CALL_RET = 37    # the agent's call returns there
_ENTRY_LEN = 149        # the entry stub's bytes
_RET_CALL_RET = 34      # and in the return stub


def _on_path(off):
    """Words pushed at entry-stub offset off: the prologue above, then
    btr, popf and the pops of the way on (at 41 and at 110, tramp.h's
    VG_TRAMP_STOPPED), 0 at its jmp."""
    for start in (41, 110):
        if start <= off < start + 31:
            return [n for o, n in _ENTRY_ON if o <= off - start][-1]
    return [n for o, n in _ENTRY_PUSHED if o <= off][-1]


try:
    from gdb.unwinder import Unwinder, register_unwinder

    class _StubUnwinder(Unwinder):
        def __init__(self):
            super().__init__("vigil-fast-stubs")

        def __call__(self, pending):
            if _live is None or not _patches:
                return None
            pc = int(pending.read_register("rip"))
            sp = pending.read_register("rsp")
            if _agent[0] <= pc < _agent[0] + _agent[1]:
                return _in_agent(pending, sp)
            for p in _patches:
                if p["entry"] <= pc < p["entry"] + _ENTRY_LEN:       # its bytes
                    entry_sp = int(sp) + 8 * _on_path(pc - p["entry"])
                    break
                if p["ret_stub"] and pc == p["ret_stub"]:
                    entry_sp = int(sp) - 8      # after the function's ret
                    break
            else:
                return None
            ret = _real.get(entry_sp)       # vigil_returns.py: swapped
            if ret is None:
                u64 = gdb.lookup_type("unsigned long").pointer()
                ret = int(gdb.Value(entry_sp).cast(u64).dereference())
                if any(ret == q["ret_stub"] for q in _patches):
                    return None
            info = pending.create_unwind_info(_FrameId(sp, pending.read_register("rip")))
            info.add_saved_register("rip", gdb.Value(ret).cast(pending.read_register("rip").type))
            info.add_saved_register("rsp", gdb.Value(entry_sp + 8).cast(sp.type))
            for r in ("rbp", "rbx", "r12", "r13", "r14", "r15"):
                info.add_saved_register(r, pending.read_register(r))
            return info

    def _in_agent(pending, sp):
        """A thread in the agent (stepi'd into it): the agent has no
        unwind tables in gdb; its caller is the stub whose call pushed
        the return address found nearest above %rsp (the agent's frames
        take about 1.1 KB). The registers the agent saved are not
        known: the outer frames show its values of rbx, rbp, r12-r15."""
        rets = set()
        for p in _patches:
            rets.add(p["entry"] + _ENTRY_CALL_RET)
            if p["ret_stub"]:
                rets.add(p["ret_stub"] + _RET_CALL_RET)
        try:
            mem = bytes(gdb.selected_inferior().read_memory(int(sp), 4096))
        except gdb.MemoryError:
            return None
        for i in range(0, len(mem), 8):
            w = int.from_bytes(mem[i:i + 8], "little")
            if w in rets:
                break
        else:
            return None
        info = pending.create_unwind_info(_FrameId(sp, pending.read_register("rip")))
        info.add_saved_register("rip", gdb.Value(w).cast(pending.read_register("rip").type))
        info.add_saved_register("rsp", gdb.Value(int(sp) + i + 8).cast(sp.type))
        for r in ("rbp", "rbx", "r12", "r13", "r14", "r15"):
            info.add_saved_register(r, pending.read_register(r))
        return info

    register_unwinder(None, _StubUnwinder(), replace=True)
except ImportError:
    pass


# --- step and next from a patched function's first bytes -------------------
# There (stepped into the function, or put back on a call at a violation)
# the next instruction is the patch's jmp into the stub, code with no line
# and no symbol: gdb steps over it as over a call, to the caller, and
# the whole function runs, or stops in the stub. So a step or next that
# starts there stops where the relocated instructions come back, fn +
# patch_len (on from the stub if gdb stopped there), and goes on to a
# line's start from there as the command would.
_step_stop = []         # the breakpoint of the step under way


class _BackIn(gdb.Breakpoint):
    def __init__(self, addr):
        super().__init__("*0x%x" % addr, internal=True, temporary=True)
        self.silent = True

    def stop(self):
        return True


class _NoFinish(gdb.Command):
    """hook-finish: in the agent, where gdb knows no frames but the
    unwinder's guess, finish would return to the stub, mid-call; said
    instead, with the way back into the function (an error in a hook
    cancels the command)."""

    def __init__(self):
        super().__init__("vigil-fast-finish-check", gdb.COMMAND_NONE)

    def invoke(self, arg, from_tty):
        if _live is None or not _patches or gdb.selected_thread() is None:
            return
        f = gdb.selected_frame()
        if not _agent[0] <= int(f.pc()) < _agent[0] + _agent[1]:
            return
        up = f.older()
        stub = int(up.pc()) if up is not None else 0
        mine = [p for p in _patches if p["entry"] <= stub < p["entry"] + _ENTRY_LEN] or _patches
        raise gdb.GdbError(
            "vigil: this thread is inside vigil's in-process agent (its stub's call); "
            "finish would stop in the stub. Back into the function: %s, then continue"
            % ", ".join("tbreak *0x%x (%s)" % (p["fn"] + p["patch_len"], p["name"])
                        for p in mine))


_NoFinish()
gdb.execute("define hook-finish\nvigil-fast-finish-check\nend", to_string=True)


def vigil_fast_step_in():
    """hook-step, hook-next"""
    if _live is None or not _patches or gdb.selected_thread() is None:
        return
    p = vigil_fast_patch_at(int(gdb.newest_frame().pc()))
    if p is not None:
        _step_stop.append(_BackIn(p["fn"] + p["patch_len"]))
        _step_stop[-1].back = p["fn"] + p["patch_len"]


def vigil_fast_step_out(cmd):
    """hookpost-step, hookpost-next"""
    if not _step_stop:
        return
    back = _step_stop[-1].back
    try:
        # gdb may stop in the stub itself (code with no line, not taken
        # for a call when the step started in the patched function): on
        # to where the relocated instructions come back
        pc = int(gdb.newest_frame().pc()) if gdb.selected_thread() else 0
        p = next((p for p in _patches if p["entry"] <= pc < p["entry"] + _ENTRY_LEN and
                  p["fn"] + p["patch_len"] == back), None)
        if p is not None:
            gdb.write("(vigil: through the in-process tier's stub, back into %s)\n" % p["name"])
            gdb.execute("continue")
    finally:
        for b in _step_stop:
            if b.is_valid():
                b.delete()
        del _step_stop[:]
    if gdb.selected_thread() is None:
        return
    f = gdb.newest_frame()
    sal = f.find_sal()
    if int(f.pc()) == back and sal.symtab is not None and sal.pc != back:
        gdb.execute(cmd)    # mid-line: on to a line's start


for _c in ("next", "step"):
    gdb.execute("define hook-%s\npython vigil_fast_step_in()\nend" % _c, to_string=True)
    gdb.execute("define hookpost-%s\npython vigil_fast_step_out(\"%s\")\n"
                "python vigil_returns_step_out(\"%s\")\nend" % (_c, _c, _c), to_string=True)


_Cmd("patches", """The functions the in-process tier patched (vigil run --fast): name, address,
the bytes the patch covers (the file's, which x/i and disassemble show, each
such instruction marked), its entry stub and relocated first instructions.
A gdb breakpoint on a patched function's first bytes stands after them (the
call is recorded by then); `vigil patches` says where.""")
