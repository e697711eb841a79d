# vigil's gdb extension: `vigil status` shows, inside the gdb session vigil
# handed over, the violation that stopped the process: the property, the
# slice, the state, the variables, and the evidence (the slice's last
# steps, each with thread, time, values and the user stack at that step).
#
# In a live session (vigil run/attach --interactive), vigil's command file
# calls vigil_live_join(SOCKET, PID): the extension then talks to the vigil
# that still monitors the process, through its control socket (the
# JSON-lines protocol of docs/CONTROL.md), and every `vigil ...` command
# asks it; vigil's SIGSTOPs become breakpoint-like stops with vigil's
# message, and its own holds resume silently.
#
# vigil's gdb command file sources this and points $vigil_report at the
# JSON vigil wrote for the violation (RUNDIR/violation-PID.json). By hand:
#   (gdb) source scripts/gdb/vigil.py
#   (gdb) set $vigil_report = "/tmp/vigil-0/violation-1234.json"
#   (gdb) vigil status
import json
import os
import signal
import socket
import time

import gdb

_TIMEOUT = 5.0          # seconds: a stuck vigil never freezes gdb for longer
_CKPT_TIMEOUT = 120.0   # a CRIU dump of a large process on a loaded machine


class _Live:
    """One connection to the live session's control socket. It stays open
    for the whole gdb session: vigil takes its end as gdb going away. So
    an answer that does not come in time (a stuck or stopped vigil), or
    whose wait Ctrl-C ends, does not close it: the answer is owed, and
    skipped when it comes (answers come in the order of the requests)."""

    def __init__(self, path, pid):
        self.path = path
        self.pid = pid
        self.sock = None
        self.buf = b""
        self.owed = 0
        self.hello = self.call("hello", [], role="gdb")["data"]

    def _connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(_TIMEOUT)
        s.connect(self.path)
        self.sock, self.buf, self.owed = s, b"", 0

    def call(self, cmd, args, timeout=_TIMEOUT, **extra):
        req = dict(v=1, cmd=cmd, args=[str(a) for a in args], **extra)
        # a request is sent again only when it could not be sent: one
        # that vigil may have carried out (a checkpoint) never is
        for attempt in (0, 1):
            try:
                if self.sock is None:
                    self._connect()
                    if cmd != "hello":      # say again who we are
                        self.sock.sendall(b'{"v":1,"cmd":"hello","role":"gdb"}\n')
                        self._line(time.monotonic() + _TIMEOUT)
                self.sock.sendall(json.dumps(req).encode() + b"\n")
                break
            except (OSError, ValueError) as e:
                self._drop()
                err = e
        else:
            raise gdb.GdbError("vigil: cannot reach the monitor (%s): %s" % (self.path, err))
        end = time.monotonic() + timeout
        try:
            while self.owed:        # the answers to requests given up on
                self._line(end)
                self.owed -= 1
            return json.loads(self._line(end))
        except socket.timeout:
            self.owed += 1
            raise gdb.GdbError("vigil: no answer from the monitor within %.0f s (%s); "
                               "the session goes on" % (timeout, self.path))
        except KeyboardInterrupt:       # Ctrl-C
            self.owed += 1
            gdb.write("vigil: interrupted; the monitor may still do '%s' when it "
                      "gets to it\n" % cmd)
            raise
        except (OSError, ValueError) as e:
            self._drop()
            raise gdb.GdbError("vigil: lost the monitor (%s): %s" % (self.path, e))

    def wait_closed(self, end):
        """Until vigil has ended (closed the connection), end at most."""
        try:
            while time.monotonic() < end:
                self.sock.settimeout(max(end - time.monotonic(), 0.01))
                if not self.sock.recv(65536):
                    break
        except (OSError, AttributeError):       # (a timeout is an OSError)
            pass
        self._drop()

    def _drop(self):
        if self.sock is not None:
            self.sock.close()
        self.sock = None

    def _line(self, end):
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                raise socket.timeout("timed out")
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("vigil closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def names(self):
        return {p["name"]: p["states"] for p in self.hello.get("properties", [])}


_live = None


def _need_live():
    if _live is None:
        raise gdb.GdbError("vigil: not a live session (start it with vigil run --interactive "
                           "or vigil attach --interactive)")
    return _live


def _ask(cmd, args):
    r = _need_live().call(cmd, args)
    if not r.get("ok"):
        raise gdb.GdbError("vigil: %s" % r.get("error", "refused"))
    return r


def _print_stop(d):
    gdb.write(d["message"] + "\n")
    v = d.get("violation")
    if v:
        gdb.write("\n".join(_violation_lines(v)) + "\n")


class _VigilStop(gdb.Function):
    """$_vigil_stop(): is the SIGSTOP this thread got one to stop at (a
    violation, a `stop` reaction, a `vigil break`)? Prints vigil's message
    when it is; vigil's own holds answer 0 and the thread resumes."""

    def __init__(self):
        super().__init__("_vigil_stop")

    def invoke(self):
        vigil_returns_gate(gdb.selected_thread().ptid[1])     # vigil_returns.py
        try:
            r = _need_live().call("stop", [gdb.selected_thread().ptid[1]])
        except gdb.GdbError as e:
            _pending["checkpoint"] = _pending["resume"] = False
            if _catch is not None and _catch.is_valid():
                _catch.silent = False
            gdb.write("%s\n" % e)
            return 1
        d = r.get("data", {})
        # a reaction's checkpoint needs gdb to let go of the process, which
        # a condition may not do: the stop goes on to the catchpoint's
        # commands (_after_stop), silent when it is only for that
        _pending["checkpoint"] = bool(d.get("checkpoint"))
        _pending["resume"] = _pending["checkpoint"] and not d.get("stop")
        if _catch is not None and _catch.is_valid():
            _catch.silent = _pending["resume"]
        if d.get("stop"):
            # stopped in an entry stub: back on the call (vigil_fast.py)
            vigil_fast_rewind(gdb.selected_thread().ptid[1])
            _print_stop(d)
            return 1
        return 1 if _pending["checkpoint"] else 0


_catch = None           # the SIGSTOP catchpoint every vigil stop needs
_pending = {"checkpoint": False, "resume": False}
_ended = False          # `vigil detach`: monitoring is over


def _catch_stops():
    global _catch
    gdb.execute("catch signal SIGSTOP", to_string=True)
    _catch = gdb.breakpoints()[-1]
    _catch.condition = "$_vigil_stop()"
    gdb.execute("commands %d\npython _after_stop()\nend" % _catch.number)


def _after_stop():
    """The catchpoint's commands: a reaction's checkpoint is taken as by
    `vigil checkpoint`; a stop only for it resumes (from here: the attach
    ends the command list, so a `continue` in it would not run)."""
    if not _pending["checkpoint"]:
        return
    resume = _pending["resume"]
    _pending["checkpoint"] = _pending["resume"] = False
    if _catch is not None and _catch.is_valid():
        _catch.silent = False
    try:
        # vigil's stderr says what it took, or why not
        _take_checkpoint(["stopped", "reaction"], quiet=True)
    except gdb.GdbError:
        pass
    except gdb.error as e:      # gdb could not attach again: say so, stay
        gdb.write("vigil: after a checkpoint reaction: %s\n" % e)
        return
    if resume and gdb.selected_inferior().pid:
        gdb.execute("continue")


def _recatch():
    if _live is not None and not _ended and \
            (_catch is None or not _catch.is_valid()):
        _catch_stops()
        gdb.write("vigil: the SIGSTOP catchpoint vigil's stops need was "
                  "deleted; it is back as catchpoint %d\n" % _catch.number)


def _catch_deleted(bp):
    # `delete` with no number deletes every breakpoint, this one too:
    # without it a violation would no longer stop the program in gdb.
    # Made again once gdb is done deleting: by hookpost-delete, before
    # the next command (a posted event could come only after a
    # `continue` had let the program run into its first stop, which gdb
    # would then pass over as a random SIGSTOP); posted too, for a
    # deletion by other means (Python, MI).
    if _catch is not None and bp.number == _catch.number:
        gdb.post_event(_recatch)


gdb.execute("define hookpost-delete\npython _recatch()\nend", to_string=True)


def vigil_live_join(path, pid):
    """Called by vigil's live command file once gdb is attached."""
    global _live
    _live = _Live(path, pid)
    _catch_stops()
    _load_probes(_live)
    vigil_fast_load(_live)      # vigil_fast.py: the patched functions
    _watch_breakpoints()
    gdb.write("vigil: live session with the monitor of pid %d (vigil pid %d): "
              "'help vigil' lists its commands\n" % (pid, _live.hello["vigil"]))
    # a stop that came before gdb did
    d = _live.call("stop", [0]).get("data", {})
    if d.get("stop"):
        _print_stop(d)
    _refresh()      # vigil_returns.py: the real callers in this first stop


# gdb's breakpoints and vigil's probes: vigil_shadow.py (sourced below)


# --- the uretprobe trampoline -------------------------------------------
#
# A thread stopped at an `after` event stands in the kernel's return
# trampoline ([uprobes] page, 0x7fffffffe000 on x86-64), which gdb cannot
# read or unwind. Linux's x86-64 trampoline pushes rax, rcx, r11 and makes
# the uretprobe system call, which returns to the instruction after it
# (offset 0xd) with the stack holding r11, rcx and the real return
# address: the function's caller is there, and `bt`, `up` and `finish`
# see it. (Inside a probed function, before it returns, the real return
# address is only in the kernel: its frame's caller still shows as the
# trampoline.)

_TRAMP_AFTER_SYSCALL = 0xd


def _uprobes_page(pid):
    try:
        for line in open("/proc/%d/maps" % pid):
            if line.rstrip().endswith("[uprobes]"):
                return int(line.split("-")[0], 16)
    except OSError:
        pass
    return None


class _FrameId:
    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


try:
    from gdb.unwinder import Unwinder, register_unwinder

    class _TrampolineUnwinder(Unwinder):
        def __init__(self):
            super().__init__("vigil-uretprobe-trampoline")
            self.page = {}

        def __call__(self, pending):
            if _live is None:
                return None
            pc = int(pending.read_register("rip"))
            pid = _live.pid
            # the page comes with the first uprobe hit: looked for again
            # while it is not there, for a pc at the top of the address
            # space, where it goes (0x7fffffffe000)
            if self.page.get(pid) is None and (pid not in self.page or
                                               pc >= 0x7ff000000000):
                self.page[pid] = _uprobes_page(pid)
            page = self.page[pid]
            if page is None or pc != page + _TRAMP_AFTER_SYSCALL:
                return None
            sp = pending.read_register("rsp")
            u64 = gdb.lookup_type("unsigned long").pointer()
            ret = (sp + 16).cast(u64).dereference()
            info = pending.create_unwind_info(_FrameId(sp, pending.read_register("rip")))
            info.add_saved_register("rip", ret.cast(pending.read_register("rip").type))
            info.add_saved_register("rsp", sp + 24)
            info.add_saved_register("rbp", pending.read_register("rbp"))
            return info

    register_unwinder(None, _TrampolineUnwinder(), replace=True)
except ImportError:
    pass


def _reattach(pid, pc, here=False, quiet=False):
    # gdb's breakpoints survive a detach and an attach, but after the
    # attach gdb no longer knows that the thread stopped at one: resumed
    # with the pc on it, it would hit it again at once. A breakpoint at
    # the pc stays disabled until the next stop. here: the pc is the
    # attached process's own (a restored process stands where the
    # checkpoint left it). quiet: not even the frame the attach stops in
    # is shown (gdb prints it outside what to_string captures)
    if quiet:
        gdb.execute("set suppress-cli-notifications on", to_string=True)
    try:
        gdb.execute("attach %d" % pid, to_string=True)
    finally:
        if quiet:
            gdb.execute("set suppress-cli-notifications off", to_string=True)
    os.kill(pid, signal.SIGCONT)     # it waits in a group stop otherwise
    if here:
        pc = int(gdb.selected_frame().pc())
    if pc is None:
        return
    held = []
    for b in gdb.breakpoints():
        if b.enabled and b.type == gdb.BP_BREAKPOINT and any(
                int(loc.address) == pc for loc in getattr(b, "locations", [])
                if loc.enabled):
            b.enabled = False
            held.append(b)
    if held:
        def again(ev):
            gdb.events.stop.disconnect(again)
            for b in held:
                if b.is_valid():
                    b.enabled = True
        gdb.events.stop.connect(again)


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
    """vigil's commands: the live monitor of this program (vigil run/attach --interactive).
After a hand-off that ended monitoring (no live session), vigil status shows the
violation vigil stopped the program at."""

    def __init__(self):
        super().__init__("vigil", gdb.COMMAND_USER, prefix=True)


class VigilStatus(gdb.Command):
    """Every property with its tier, slices per state, events, lost and probes.
In a live session, the monitor now; after a hand-off that ended monitoring, the
violation vigil stopped this process at, with its evidence."""

    def __init__(self):
        super().__init__("vigil status", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if _live is not None:
            gdb.write(_ask("status", [])["text"])
            return
        path = _report_path()
        try:
            with open(path) as f:
                v = json.loads(f.readline())
        except (OSError, ValueError) as e:
            raise gdb.GdbError("vigil: cannot read %s: %s" % (path, e))
        gdb.write("\n".join(_violation_lines(v)) + "\n")


def _violation_lines(v):
        out = []
        out.append("property  %s" % v["property"])
        out.append("slice     %s" % _kv(v["slice"], v.get("names")))
        out.append("state     %s -> %s (%s)" % (v.get("from", "?"), v["state"], v["verdict"]))
        if v.get("vars"):
            out.append("vars      %s" % _kv(v["vars"], v.get("names")))
        if v.get("range"):      # a memory check's: the object, the overrun
            out.append("range     %s" % v["range"]["text"])
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
        return out


class _Cmd(gdb.Command):
    """A `vigil NAME ...` command that vigil answers over the socket."""

    def __init__(self, name, doc, complete_states=False):
        self.__doc__ = doc
        self.cname = name
        self.states = complete_states
        super().__init__("vigil " + name, gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        self.run(gdb.string_to_argv(arg))

    def run(self, argv):
        gdb.write(_ask(self.cname, argv).get("text", ""))

    def complete(self, text, word):
        """Property names, then that property's state names."""
        if _live is None:
            return gdb.COMPLETE_NONE
        argv = text.split()
        names = _live.names()
        done = len(argv) - (0 if text.endswith(" ") or not argv else 1)
        word = word or ""
        if done == 0:
            return [n for n in names if n.startswith(word)]
        if done == 1 and self.states and argv[0] in names:
            return [s for s in names[argv[0]] if s.startswith(word)]
        return gdb.COMPLETE_NONE


def _take_checkpoint(args, quiet=False):
    # CRIU cannot dump a traced process: gdb lets go of it, held in a
    # group stop (the SIGSTOP queued now lands as gdb detaches), vigil
    # dumps it and leaves it stopped, gdb takes it back: same pid, and
    # gdb's breakpoints survive a detach and an attach. quiet: gdb says
    # nothing of it (a reaction's checkpoint, the program resumed after)
    pid = _need_live().pid
    pc = int(gdb.selected_frame().pc()) if gdb.selected_thread() else None
    vigil_returns_put_back_all()    # (its SIGCONT first, then our SIGSTOP)
    os.kill(pid, signal.SIGSTOP)
    gdb.execute("detach", to_string=True)
    try:
        r = _need_live().call("checkpoint", args, timeout=_CKPT_TIMEOUT)
    finally:
        _reattach(pid, pc, quiet=quiet)
    if not r.get("ok"):
        raise gdb.GdbError("vigil: %s" % r.get("error", "refused"))
    if not quiet:
        gdb.write(r.get("text", ""))


class _Checkpoint(_Cmd):
    def run(self, argv):
        _take_checkpoint(["stopped"])


class _Restore(_Cmd):
    def run(self, argv):
        # as for a checkpoint, gdb lets go of the process (CRIU needs its
        # pid free, vigil kills it) and attaches to the restored one: the
        # same pid, gdb's breakpoints kept
        live = _need_live()
        pid = live.pid
        attached = bool(gdb.selected_inferior().pid)
        pc = int(gdb.selected_frame().pc()) if attached else None
        if attached:
            os.kill(pid, signal.SIGSTOP)
            gdb.execute("detach", to_string=True)
        try:
            r = live.call("restore", argv + ["stopped"], timeout=_CKPT_TIMEOUT)
        except gdb.GdbError:
            r = {"ok": False, "error": "no answer from the monitor"}
        ok = r.get("ok")
        try:
            # refused: the same process, as it was
            _reattach(pid, None if ok else pc, here=ok)
        except gdb.error as e:
            raise gdb.GdbError("vigil: %s; gdb cannot attach to pid %d: %s"
                               % (r.get("error", "restored"), pid, e))
        if not ok:
            raise gdb.GdbError("vigil: %s" % r.get("error", "refused"))
        gdb.write(r.get("text", ""))

    def complete(self, text, word):
        """The checkpoints' numbers."""
        if _live is None:
            return gdb.COMPLETE_NONE
        try:
            cks = _live.call("checkpoints", [])["data"]["checkpoints"]
        except (gdb.GdbError, KeyError):
            return gdb.COMPLETE_NONE
        return [str(c["n"]) for c in cks if str(c["n"]).startswith(word or "")]
# gdb's breakpoints on probed and patched addresses
gdb.execute("source %s" % os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "vigil_shadow.py"))
# vigil leaks and vigil graph (vigil_report_cmds.py)
gdb.execute("source %s" % os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "vigil_report_cmds.py"))

VigilPrefix()
VigilStatus()
_VigilStop()
_Cmd("slices", """List the live slices of PROPERTY, with their state and variables.
Usage: vigil slices PROPERTY [STATE]""", complete_states=True)
_Cmd("show", """Show one slice of PROPERTY with its evidence (its last steps and stacks).
Usage: vigil show PROPERTY SLICE   (SLICE as `vigil slices` names it, e.g. q=0x55d1c0a012a0)""")
_Cmd("break", """Stop the program whenever a slice of PROPERTY enters STATE.
Usage: vigil break PROPERTY STATE   (vigil delete N removes it; vigil breaks lists them)""",
     complete_states=True)
_Cmd("delete", """Remove the monitor breakpoint N (see vigil breaks).
Usage: vigil delete N""")
_Cmd("breaks", """List the monitor breakpoints (vigil break).""")
_Cmd("set", """Change one slice: a variable, or its state.
Usage: vigil set PROPERTY SLICE VAR=VALUE
       vigil set PROPERTY SLICE state=STATE""")
_Graph("graph", """The automata as Graphviz DOT (or SVG), each state with its live slice count;
the state of the slice the last stop was about is filled blue, its slice named.
Usage: vigil graph [PROPERTY] [--svg FILE]""", complete_states=False)
_Checkpoint("checkpoint", """Take a CRIU checkpoint of the program and of the monitor state.
gdb detaches while CRIU dumps and attaches again (same pid, breakpoints kept).""")
_Cmd("checkpoints", """List the checkpoints of this session: number, events, good/bad, reason.""")
_Restore("restore", """Go back to checkpoint N (default: the newest), program and monitor state together.
Usage: vigil restore [N]
vigil kills the program and CRIU brings back checkpoint N under the same pid;
the monitor's slices, variables and event counts are those saved with it.
gdb attaches to the restored process (its breakpoints kept); `continue` then
replays forward under monitoring. Output files keep what the program wrote
since the checkpoint; the restored program writes on after it.""")
_keep_stopped = [False]


class _KeepStopped(_Cmd):
    def run(self, argv):
        gdb.write(_ask(self.cname, argv).get("text", ""))
        _keep_stopped[0] = not argv or argv[0] != "off"


def _exiting(*_):
    # gdb quits: it detaches next, which would let the program run on
    # (where vigil, until it hears of gdb's end, may stop it again at a
    # later event). Kept stopped, it stays where the user left it: a
    # SIGSTOP queued now holds it in a group stop as gdb lets go.
    if _live is not None and not _ended and _keep_stopped[0] and \
            gdb.selected_inferior().pid:
        try:
            os.kill(_live.pid, signal.SIGSTOP)
        except ProcessLookupError:
            pass


_KeepStopped("keep-stopped", """Whether the program stays stopped if gdb goes away (default: resumed).
Usage: vigil keep-stopped [on|off]""")
class _Detach(_Cmd):
    def run(self, argv):
        global _ended
        live = _need_live()
        # said first, whole: vigil's last report follows on the terminal
        # as soon as it has answered (before gdb may read the answer), and
        # gdb's prompt after that (vigil closes the connection at its end)
        gdb.write("vigil: monitoring ends; the program goes on\n")
        gdb.flush()
        _ask(self.cname, argv)
        # no stop is vigil's any more: its catchpoint goes, and is not
        # made again (_recatch)
        _ended = True
        if _catch is not None and _catch.is_valid():
            _catch.delete()
        live.wait_closed(time.monotonic() + _TIMEOUT)


_Detach("detach", """End monitoring: vigil detaches its probes and exits; gdb stays attached.""")


# --- vigil load / unload (user/session/live_load.c) ----------------------

def _after_load_change(live):
    # new property names for completion, and the probes gdb's breakpoints
    # must keep off (a loaded property's) or may use again (an unloaded one's)
    live.hello = live.call("hello", [], role="gdb")["data"]
    _load_probes(live)
    for bp in gdb.breakpoints():
        _shadow(bp)


class _Load(_Cmd):
    def run(self, argv):
        live = _need_live()
        if not argv:
            raise gdb.GdbError("usage: vigil load SPEC [-D NAME=VALUE ...]")
        # vigil may run in another directory than gdb
        argv[0] = os.path.abspath(os.path.expanduser(argv[0]))
        # it compiles the spec and verifies its BPF programs: seconds
        r = live.call("load", argv, timeout=_CKPT_TIMEOUT)
        if not r.get("ok"):
            raise gdb.GdbError("vigil: %s" % r.get("error", "refused"))
        _after_load_change(live)
        gdb.write(r.get("text", ""))

    def complete(self, text, word):
        return gdb.COMPLETE_FILENAME


class _Unload(_Cmd):
    def run(self, argv):
        r = _ask("unload", argv)
        _after_load_change(_need_live())
        gdb.write(r.get("text", ""))


_Load("load", """Add the properties of SPEC to the live session while the program runs.
Usage: vigil load SPEC [-D NAME=VALUE ...]
Each property gets its own probes (kernel tier when eligible) and starts
from its initial state: objects made before the load have no slice, so
what later happens to them is not checked (docs/reference/live-gdb.md). A bad spec
(file:line:col), a missing function or a property name already in the
session is refused and the session goes on unchanged.""")
_Unload("unload", """Remove a property from the live session: its verdicts are said, its
slices freed; it stops the program no more, and its monitor breakpoints
are deleted. Properties loaded together from one file (vigil load) go
together, their probes detached. A property given when the session
started goes alone: its probes are detached where no other property
uses them, and probes it shares a link with stay, idle (vigil status
counts them); the other properties' probes are untouched.
Usage: vigil unload PROPERTY""")
# the real callers of functions with an `after` probe
gdb.execute("source %s" % os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "vigil_returns.py"))
_Leaks("leaks", """A leak check now: the live blocks of the leak property classed as memcheck
does (definitely, indirectly, possibly lost, still reachable) by a scan of the
program's memory, as loss records by allocation stack and a LEAK SUMMARY.
Usage: vigil leaks [KINDS]   (KINDS: definite,indirect,possible,reachable or all;
                              default definite,possible)""")
# the in-process tier's patched functions (after vigil_returns.py: its _real)
gdb.execute("source %s" % os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "vigil_fast.py"))
# after vigil_returns.py's: its SIGCONT (which drops queued SIGSTOPs) first
if hasattr(gdb.events, "gdb_exiting"):     # gdb 12 and later
    gdb.events.gdb_exiting.connect(_exiting)
