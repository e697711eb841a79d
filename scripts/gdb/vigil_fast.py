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


def vigil_fast_load(live):
    """At the join: what vigil patched (nothing when the tier is off)."""
    del _patches[:]
    try:
        r = live.call("patches", [])
    except gdb.GdbError:
        return
    if r.get("ok"):
        _patches.extend(r.get("data", {}).get("patches", []))


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
    """A thread the entry stub stopped (kill(getpid(), SIGSTOP) at the
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
    gdb.execute("set $eflags = %d" % words[0], to_string=True)
    gdb.execute("set $orig_rax = -1", to_string=True)     # no syscall restart
    gdb.execute("set $pc = %d" % p["fn"], to_string=True)
    try:
        _live.call("fast-rewound", [tid, p["hook"], words[10]])
    except gdb.GdbError as e:
        gdb.write("%s\n" % e)
    gdb.invalidate_cached_frames()
    return True


# --- x/i and disassemble ------------------------------------------------

try:
    from gdb.disassembler import (Disassembler, DisassemblerResult,
                                  builtin_disassemble, register_disassembler)

    class _Original:
        """The file's bytes over a patch, memory's elsewhere."""

        def __init__(self, info, p):
            self.info = info
            self.p = p

        def read_memory(self, length, offset):
            at = self.info.address + offset
            out = bytearray(self.info.read_memory(length, offset))
            orig = bytes.fromhex(self.p["orig"])
            for i in range(length):
                k = at + i - self.p["fn"]
                if 0 <= k < len(orig):
                    out[i] = orig[k]
            return out

    class _PatchDisassembler(Disassembler):
        def __init__(self):
            super().__init__("vigil-patches")

        def __call__(self, info):
            p = vigil_fast_patch_at(info.address) if _patches else None
            if p is None:
                return None     # gdb's own
            r = builtin_disassemble(info, _Original(info, p))
            if info.address == p["fn"]:
                note = "\t# vigil: patched, runs jmp 0x%x (in-process tier)" % p["entry"]
            else:
                note = "\t# vigil: patched"
            return DisassemblerResult(r.length, r.string + note)

    register_disassembler(_PatchDisassembler(), None)
except ImportError:     # gdb before 13: trust-readonly-sections alone
    pass


# --- a thread inside a stub -------------------------------------------------
# The entry stub's words pushed at each offset (user/fast/tramp.c): push
# %rsp, nine registers, the flags, the call; the way on pops them again.
# %rsp + 8 * pushed is then the function's entry %rsp, the return
# address there. Offsets past the last listed keep its count.
_ENTRY_PUSHED = [(0, 0), (1, 1), (3, 2), (5, 3), (6, 4), (8, 5), (10, 6),
                 (11, 7), (12, 8), (13, 9), (14, 10), (15, 11)]


def _on_path(off):
    """Words pushed at entry-stub offset off: the prologue above, then
    popf and the pops of the way on (at 41 and at 95, tramp.h's
    VG_TRAMP_STOPPED, each 20 bytes), 0 at its jmp."""
    for start in (41, 95):
        if start <= off < start + 25:
            pops = [(0, 11), (1, 10), (2, 9), (3, 8), (4, 7), (5, 6),
                    (7, 5), (9, 4), (10, 3), (12, 2), (14, 1), (19, 0)]
            return [n for o, n in pops if o <= off - start][-1]
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
            for p in _patches:
                if p["entry"] <= pc < p["entry"] + 128:       # its 128 bytes
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

    register_unwinder(None, _StubUnwinder(), replace=True)
except ImportError:
    pass


_Cmd("patches", """The functions the in-process tier patched (vigil run --fast): name, address,
the bytes the patch covers (the file's, which x/i and disassemble show, each
such instruction marked), its entry stub and relocated first instructions.
A gdb breakpoint on a patched function's first bytes stands after them (the
call is recorded by then); `vigil patches` says where.""")
