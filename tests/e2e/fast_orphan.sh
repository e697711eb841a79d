# The in-process tier when vigil is SIGKILLed: the agent notices at the
# target's next call and, the target having one thread, writes the
# patched function's original bytes back (inproc/takeback.c):
#  - vigil run --fast tick of ticker (one thread), vigil killed: the bytes
#    of tick in the running process are the file's again, and the target
#    runs on to its end with the right output;
#  - the same under vigil attach;
#  - ticker with a second thread (which calls nothing) under vigil attach,
#    vigil killed: the patch stays (inert: rewriting code another thread
#    may be running is not safe), the calls right; once that thread has
#    ended, a later call takes it back.
. "$(dirname "$0")/lib.sh"
unset VIGIL_FAST

# "MEM FILE": the first 16 bytes of function $3 of binary $2 in process
# $1, and the same bytes in the file (its mapping says where); with $4
# "perms", the protection of its mapping
bytes() {
	python3 - "$@" <<'PY'
import os, subprocess, sys
pid, path, name = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
sym = [l.split() for l in subprocess.run(["nm", path], capture_output=True,
       text=True).stdout.splitlines()]
value = int([s[0] for s in sym if len(s) == 3 and s[2] == name][0], 16)
maps = []
for l in open("/proc/%s/maps" % pid):
    f = l.split()
    if len(f) >= 6 and os.path.realpath(f[5]) == path:
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        maps.append((lo, hi, int(f[2], 16), f[1]))
base = min(m[0] - m[2] for m in maps)	# the ELF's load bias
addr = base + value
lo, hi, off, perms = [m for m in maps if m[0] <= addr < m[1]][0]
if sys.argv[4:] == ["perms"]:
    print(perms)
    sys.exit(0)
with open("/proc/%s/mem" % pid, "rb") as m:
    m.seek(addr)
    mem = m.read(16)
with open(path, "rb") as f:
    f.seek(addr - lo + off)
    print(mem.hex(), f.read(16).hex())
PY
}

# until $1's function $3 ($2 the binary) is the file's again, 3 s at most
restored() {
	local b
	for _ in $(seq 60); do
		b=$(bytes "$1" "$2" "$3") || return 1
		[ "${b% *}" = "${b#* }" ] && return 0
		sleep 0.05
	done
	echo "still: $b"
	return 1
}

wait_patched() {	# $1: vigil's output, $2 its pid
	for _ in $(seq 200); do
		grep -q 'in-process tier: 1 function patched' "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	cat "$1"
	fail "the function was not patched"
}

# --- vigil run, SIGKILLed mid-run ------------------------------------
"$VIGIL" run --fast tick specs/ticks.vigil -- "$TARGETS/ticker" \
	>"$TMP/run.out" 2>&1 &
vpid=$!
wait_patched "$TMP/run.out" "$vpid"
for _ in $(seq 100); do grep -q '^ticker: pid' "$TMP/run.out" && break; sleep 0.05; done
tpid=$(sed -nE 's/^ticker: pid ([0-9]+)$/\1/p' "$TMP/run.out")
[ -n "$tpid" ] || fail "run: no target pid: $(cat "$TMP/run.out")"
LEFT_PIDS+=("$tpid")
sleep 0.3
b=$(bytes "$tpid" "$TARGETS/ticker" tick)
echo "run, patched: $b"
[ "${b:0:2}" = e9 ] || fail "run: tick does not start with the patch's jmp: $b"
kill -KILL "$vpid"
wait "$vpid" 2>/dev/null
restored "$tpid" "$TARGETS/ticker" tick || fail "run: tick's bytes not taken back after vigil died"
echo "run, vigil gone: $(bytes "$tpid" "$TARGETS/ticker" tick)"
p=$(bytes "$tpid" "$TARGETS/ticker" tick perms)
[ "$p" = r-xp ] || fail "run: tick's page is $p after the take-back"
grep -q '^ticker: calls' "$TMP/run.out" && fail "run: the target ended early: $(cat "$TMP/run.out")"
kill -INT "$tpid"
for _ in $(seq 100); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$tpid" 2>/dev/null && fail "run: the target did not end on SIGINT ($(proc_state "$tpid"))"
grep -qE '^ticker: calls tick=[0-9]+ \(interrupted\)$' "$TMP/run.out" ||
	fail "run: the target did not finish right: $(cat "$TMP/run.out")"

# --- vigil attach, SIGKILLed ----------------------------------------
"$TARGETS/ticker" >"$TMP/ticker.out" 2>&1 &
tpid=$!
LEFT_PIDS+=("$tpid")
sleep 0.2
orig=$(bytes "$tpid" "$TARGETS/ticker" tick)
[ "${orig% *}" = "${orig#* }" ] || fail "attach: tick is not the file's before vigil: $orig"
"$VIGIL" attach --fast tick specs/ticks.vigil -p "$tpid" >"$TMP/attach.out" 2>&1 &
vpid=$!
wait_patched "$TMP/attach.out" "$vpid"
sleep 0.3
b=$(bytes "$tpid" "$TARGETS/ticker" tick)
[ "${b:0:2}" = e9 ] || fail "attach: tick does not start with the patch's jmp: $b"
kill -KILL "$vpid"
wait "$vpid" 2>/dev/null
restored "$tpid" "$TARGETS/ticker" tick || fail "attach: tick's bytes not taken back after vigil died"
[ "$(bytes "$tpid" "$TARGETS/ticker" tick)" = "$orig" ] || fail "attach: not the bytes of before"
kill -INT "$tpid"
wait "$tpid"
rc=$?
[ "$rc" -eq 0 ] || fail "attach: the target exited $rc"
grep -qE '^ticker: calls tick=[0-9]+ \(interrupted\)$' "$TMP/ticker.out" ||
	fail "attach: the target did not finish right: $(cat "$TMP/ticker.out")"

# --- two threads: the patch stays, inert, until there is one ----------
# (ticker's second thread calls nothing and ends on SIGUSR1)
"$TARGETS/ticker" -1 --idle-thread >"$TMP/ticker2.out" 2>&1 &
tpid=$!
LEFT_PIDS+=("$tpid")
sleep 0.2
"$VIGIL" attach --fast tick specs/ticks.vigil -p "$tpid" >"$TMP/a.out" 2>&1 &
vpid=$!
wait_patched "$TMP/a.out" "$vpid"
kill -KILL "$vpid"
wait "$vpid" 2>/dev/null
sleep 0.5	# some 500 000 calls of tick with vigil gone
b=$(bytes "$tpid" "$TARGETS/ticker" tick)
echo "two threads, vigil gone: $b"
[ "$(awk '/^Threads:/ { print $2 }' /proc/$tpid/status)" = 2 ] || fail "not two threads"
[ "${b:0:2}" = e9 ] || fail "two threads: the patch was taken back with another thread there: $b"
kill -USR1 "$tpid"
for _ in $(seq 100); do grep -q 'idle thread gone' "$TMP/ticker2.out" && break; sleep 0.05; done
grep -q 'idle thread gone' "$TMP/ticker2.out" || fail "the idle thread did not end"
restored "$tpid" "$TARGETS/ticker" tick || fail "one thread again: tick's bytes not taken back"
kill -INT "$tpid"
wait "$tpid"
rc=$?
[ "$rc" -eq 0 ] || fail "two threads: the target exited $rc"
grep -qE '^ticker: calls tick=[0-9]+ \(interrupted\)$' "$TMP/ticker2.out" ||
	fail "two threads: the target did not finish right: $(cat "$TMP/ticker2.out")"
echo "fast_orphan: ok"
