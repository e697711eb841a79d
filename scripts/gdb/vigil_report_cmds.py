# vigil's gdb extension (vigil.py sources this): the commands that bring
# a report back from vigil, vigil leaks and vigil graph, with what only
# gdb has (the threads' registers) or only gdb can do (write the files).
# They share vigil.py's globals (_Cmd, _ask).

class _Leaks(_Cmd):
    """vigil cannot seize the threads gdb holds for their registers: their
    values go with the request, as roots of the scan."""

    REGS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9",
            "r10", "r11", "r12", "r13", "r14", "r15", "fs_base", "gs_base")

    def run(self, argv):
        values = []
        current = gdb.selected_thread()
        try:
            for th in gdb.selected_inferior().threads():
                th.switch()
                frame = gdb.newest_frame()
                for name in self.REGS:
                    try:
                        values.append(hex(int(frame.read_register(name)) &
                                          0xffffffffffffffff))
                    except (gdb.error, ValueError):
                        pass
        finally:
            if current is not None and current.is_valid():
                current.switch()
        gdb.write(_ask(self.cname, list(argv) + ["regs"] + values).get("text", ""))


class _Graph(_Cmd):
    def run(self, argv):
        if "--svg" not in argv:
            return _Cmd.run(self, argv)
        i = argv.index("--svg")
        if i + 1 >= len(argv):
            raise gdb.GdbError("usage: vigil graph [PROPERTY] --svg FILE")
        path = os.path.abspath(os.path.expanduser(argv[i + 1]))
        graphs = _ask("graph", argv[:i] + argv[i + 2:] + ["--svg"])["data"]["graphs"]
        stem, ext = os.path.splitext(path)
        for k, g in enumerate(graphs):
            # a loaded file's graph beside the session's: FILE-2.svg, ...
            out = path if k == 0 else "%s-%d%s" % (stem, k + 1, ext or ".svg")
            with open(out, "w") as f:
                f.write(g["svg"])
            gdb.write("wrote %s%s\n" % (out, " (loaded from %s)" % g["loaded"]
                                          if g["loaded"] else ""))
