# bench/gdb_count.py - the debugger baseline: a gdb breakpoint whose Python
# stop() reads one argument (the first integer argument register, so it works
# on the assembly function too) and lets the program continue.
#
#   VG_BENCH_FN=vg_bench_op[,vg_bench_op_ss] \
#       gdb -batch -nx -x bench/gdb_count.py --args LOOP ARGS
#
# Prints "gdb: FUNC hits=N sum=S" for each function after the program exits.
import os

import gdb


class CountingBreakpoint(gdb.Breakpoint):
    def __init__(self, func):
        # At the function's first instruction, where the uprobes are.
        super().__init__("*" + func)
        self.func = func
        self.hits = 0
        self.sum = 0

    def stop(self):
        self.hits += 1
        self.sum += int(gdb.parse_and_eval("$rdi"))
        return False  # continue: never hand control to the user


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set startup-with-shell off")
bps = [CountingBreakpoint(f) for f in os.environ["VG_BENCH_FN"].split(",")]
gdb.execute("run")
for bp in bps:
    print("gdb: %s hits=%d sum=%d" % (bp.func, bp.hits, bp.sum), flush=True)
