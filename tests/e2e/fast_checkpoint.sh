# The in-process tier and CRIU checkpoints (user/fast/fast_ckpt.c):
#  - a checkpoint of a patched target takes the tier out before the dump
#    and puts it back after: the image has none of vigil (a plain restore
#    has no vigil mapping, the functions' bytes are the file's, and it runs
#    on to its end), the running target is patched again and recorded;
#  - a restore in the session (vigil ctl restore) patches the restored
#    process again: a violation after it is caught in-process, the target
#    stopped before the call;
#  - vigil restore --monitor patches the restored process as attach does;
#  - a reaction's checkpoints take it out and put it back each time, and
#    the restore on a violation hands over a process with none of it;
#  - a thread inside a patched function whose return the agent hijacked
#    (blocked in pthread_mutex_lock) has its return address mended before
#    the dump: the restored process returns to its caller, not to a stub
#    that is not in the image;
#  - --snapshot=fork keeps refusing the tier, and says why.
. "$(dirname "$0")/lib.sh"
unset VIGIL_FAST

cat >"$TMP/req.vigil" <<'V'
property requests "a request ends once, after it began"
slice on id
state idle accepting {
  before request_begin(id) -> busy
  before request_end(id) -> ended_twice
}
state busy {
  before request_end(id) -> idle
}
state ended_twice violation
on enter ended_twice: stop
V
FAST=request_begin,request_end
SVC_BIN=$(readlink -f "$TARGETS/service")
off=$(nm "$SVC_BIN" | awk '$3 == "request_end" { print $1 }')
[ -n "$off" ] || fail "no request_end in $SVC_BIN"

# bytes PID: the first 8 bytes of request_end in process PID (the file's
# when PID is "file")
bytes() {
	python3 - "$1" "$SVC_BIN" "$off" <<'PY'
import sys
pid, exe, off = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
if pid == "file":
    with open(exe, "rb") as f:
        f.seek(off)
        print(f.read(8).hex())
    sys.exit(0)
base = None
for l in open("/proc/%s/maps" % pid):
    p = l.split()
    if len(p) >= 6 and p[5] == exe and p[2] == "00000000":
        base = int(p[0].split("-")[0], 16)
        break
with open("/proc/%s/mem" % pid, "rb") as m:
    m.seek(base + off)
    print(m.read(8).hex())
PY
}
# vigil_maps PID: how many of its mappings are vigil's (the region's memfd,
# the threads' table when the kernel names it)
vigil_maps() {
	grep -c 'vigil' "/proc/$1/maps"
}
# end_hits PID: request_end's hits in the session monitoring PID
end_hits() {
	"$VIGIL" ctl --json "$1" status | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
print(sum(e["hits"] for e in d["per_event"] if e["name"] == "request_end"))'
}
wait_for() {	# FILE REGEX [TENTHS]
	for _ in $(seq "${3:-100}"); do grep -qE -- "$2" "$1" && return 0; sleep 0.1; done
	cat "$1"
	fail "$1 lacks /$2/"
}
gone() {
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	fail "pid $1 is still there"
}

# --- a checkpoint of a patched target -----------------------------------
orig=$(bytes file)
"$VIGIL" run --fast "$FAST" --checkpoint-dir "$TMP/ck" "$TMP/req.vigil" -- \
	"$TARGETS/service" "$TMP/svc.pid" >>"$TMP/svc.out" 2>>"$TMP/out" &
vpid=$!
wait_for "$TMP/out" 'in-process tier: 2 functions patched'
for _ in $(seq 50); do [ -s "$TMP/svc.pid" ] && break; sleep 0.1; done
svc=$(cat "$TMP/svc.pid")
LEFT_PIDS+=("$svc")
[ "$(bytes "$svc" | cut -c1-2)" = e9 ] || fail "request_end does not start with the patch's jmp: $(bytes "$svc")"
[ "$(vigil_maps "$svc")" -ge 1 ] || fail "no vigil mapping in the patched target"
"$VIGIL" checkpoint -p "$svc" >/dev/null 2>&1 || fail "vigil checkpoint failed"
wait_for "$TMP/out" "checkpoint $TMP/ck/ck-0001 \(on demand"
wait_for "$TMP/out" 'in-process tier: 2 functions patched again'
[ "$(bytes "$svc" | cut -c1-2)" = e9 ] || fail "request_end not patched again after the checkpoint: $(bytes "$svc")"
h1=$(end_hits "$svc")
sleep 0.5
h2=$(end_hits "$svc")
[ "$h2" -gt "$h1" ] || fail "no call recorded after the checkpoint ($h1, then $h2)"

# --- a restore in the session: patched again, a violation caught --------
"$VIGIL" ctl "$svc" restore >"$TMP/ctl" 2>&1 || fail "vigil ctl restore: $(cat "$TMP/ctl")"
wait_for "$TMP/out" "restored pid $svc from checkpoint 1"
[ "$(grep -c 'functions patched again' "$TMP/out")" = 2 ] || fail "not patched again after the restore: $(cat "$TMP/out")"
[ "$(bytes "$svc" | cut -c1-2)" = e9 ] || fail "request_end not patched in the restored process: $(bytes "$svc")"
h1=$(end_hits "$svc")
sleep 0.5
h2=$(end_hits "$svc")
[ "$h2" -gt "$h1" ] || fail "no call recorded after the restore ($h1, then $h2)"
kill -USR1 "$svc"
wait "$vpid"
rc=$?
cat "$TMP/out"
[ "$rc" = 1 ] || fail "vigil exited $rc, not 1 (a violation)"
grep -q 'VIOLATION of requests' "$TMP/out" || fail "the violation after the restore was not caught"
grep -q 'stopped at the call of request_end, before its first instruction (the in-process tier' "$TMP/out" ||
	fail "not stopped in-process before request_end"
grep -qE 'checkpoints: taken=1 skipped=0 .* failed=0' "$TMP/out" || fail "checkpoint counts"
[ "$(proc_state "$svc")" = T ] || fail "the target is not left stopped"
# nothing of request_end ran: the thread is on its first instruction
timeout 60 gdb -batch -p "$svc" -ex 'x/i $pc' >"$TMP/gdb" 2>&1
grep -q '=> 0x[0-9a-f]* <request_end>:' "$TMP/gdb" || fail "the thread is not at request_end's first instruction: $(cat "$TMP/gdb")"
kill -KILL "$svc"
gone "$svc"

# --- the image has none of vigil ----------------------------------------
run_vigil restore "$TMP/ck/ck-0001"
expect_rc 0
expect_out "restored pid $svc from $TMP/ck/ck-0001"
[ "$(vigil_maps "$svc")" = 0 ] || fail "the image has vigil's mappings: $(grep vigil "/proc/$svc/maps")"
[ "$(bytes "$svc")" = "$orig" ] || fail "the image's request_end is $(bytes "$svc"), the file's $orig"
kill -CONT "$svc"
sleep 0.3
kill -USR1 "$svc"	# unmonitored: the bug is harmless
sleep 0.1
kill -TERM "$svc"
gone "$svc"
grep -qE '^service: [0-9]+ requests$' "$TMP/svc.out" || fail "the restored service did not finish: $(cat "$TMP/svc.out")"

# --- vigil restore --monitor: patched as on attach ----------------------
VIGIL_FAST=$FAST "$VIGIL" restore --force "$TMP/ck/ck-0001" --monitor "$TMP/req.vigil" >"$TMP/out" 2>&1 &
rpid=$!
wait_for "$TMP/out" 'in-process tier: 2 functions patched' 100
sleep 0.3
[ "$(bytes "$svc" | cut -c1-2)" = e9 ] || fail "request_end not patched after vigil restore --monitor: $(bytes "$svc")"
kill -USR1 "$svc"
wait "$rpid"
cat "$TMP/out"
grep -q 'VIOLATION of requests' "$TMP/out" || fail "vigil restore --monitor: the violation was not caught"
grep -q 'before its first instruction (the in-process tier' "$TMP/out" || fail "vigil restore --monitor: not stopped in-process"
kill -KILL "$svc"
gone "$svc"

# --- checkpoints by reaction, a restore on the violation ----------------
# naps (usleep, by uprobe) checkpoints at most every 300 ms, the tier
# taken out and put back each time; the in-process violation restores
# the last image, which the session hands over with none of vigil in it
sed 's/on enter ended_twice: stop/on enter ended_twice: restore/' "$TMP/req.vigil" >"$TMP/naps.vigil"
cat >>"$TMP/naps.vigil" <<'V'

property naps "the service naps"
state awake accepting {
  before usleep(n) -> napping
}
state napping accepting {
  before usleep(n) -> napping
}
on enter napping: checkpoint
V
rm -f "$TMP/svc.pid"
"$VIGIL" run --fast "$FAST" --checkpoint-dir "$TMP/ck3" --checkpoint-gap 300 --checkpoints 3 \
	"$TMP/naps.vigil" -- "$TARGETS/service" "$TMP/svc.pid" >>"$TMP/svc.out" 2>"$TMP/out" &
vpid=$!
wait_for "$TMP/out" 'in-process tier: 2 functions patched'
wait_for "$TMP/out" "checkpoint $TMP/ck3/ck-0004 "
svc=$(cat "$TMP/svc.pid")
LEFT_PIDS+=("$svc")
# a SIGUSR1 that comes while a checkpoint holds the program may never
# reach its handler (with --no-fast too): sent again until it does
for _ in $(seq 20); do
	grep -q 'VIOLATION of requests' "$TMP/out" && break
	kill -USR1 "$svc"
	sleep 0.5
done
wait "$vpid"
cat "$TMP/out"
[ "$(grep -c 'functions patched again' "$TMP/out")" -ge 4 ] || fail "not patched again after each checkpoint"
grep -q 'VIOLATION of requests' "$TMP/out" || fail "the violation after the reactions' checkpoints was not caught"
grep -qE "target pid $svc is restored from $TMP/ck3/ck-[0-9]+ and left stopped" "$TMP/out" || fail "no restore on the violation"
[ "$(proc_state "$svc")" = T ] || fail "the restored target is not stopped"
[ "$(vigil_maps "$svc")" = 0 ] || fail "the restored target has vigil's mappings"
[ "$(bytes "$svc")" = "$orig" ] || fail "the restored target's request_end is $(bytes "$svc"), the file's $orig"
kill -KILL "$svc"
gone "$svc"

# --- a hijacked return at the checkpoint --------------------------------
cat >"$TMP/lock.vigil" <<'V'
property lock_ret "a mutex is unlocked by its holder"
slice on ptr m
int owner = 0
state free accepting {
  after pthread_mutex_lock(m) returns r when r == 0 { owner = tid; } -> held
}
state held accepting {
  before pthread_mutex_unlock(m) when owner != tid -> wrong_thread
  before pthread_mutex_unlock(m) { owner = 0; } -> free
}
state wrong_thread violation
on enter wrong_thread: stop
V
"$VIGIL" lint "$TMP/lock.vigil" --binary "$TARGETS/timely" >"$TMP/lint" 2>&1
grep -q 'in-process after pthread_mutex_lock: .*at its return' "$TMP/lint" || fail "lint: pthread_mutex_lock's return not in-process: $(cat "$TMP/lint")"
# timely wait: a thread blocks in pthread_mutex_lock for 3 s (its return
# hijacked by the agent) while the main thread holds the mutex
"$VIGIL" run --checkpoint-dir "$TMP/ck2" "$TMP/lock.vigil" -- "$TARGETS/timely" wait 3000 \
	>>"$TMP/timely.out" 2>"$TMP/out" &
vpid=$!
wait_for "$TMP/out" 'in-process tier: 2 functions patched'
sleep 1
tpid=$(pgrep -x timely)
[ -n "$tpid" ] || fail "timely is not running"
LEFT_PIDS+=("$tpid")
"$VIGIL" checkpoint -p "$tpid" >/dev/null 2>&1 || fail "vigil checkpoint of timely failed"
wait "$vpid"
rc=$?
cat "$TMP/out" "$TMP/timely.out"
[ "$rc" = 0 ] || fail "vigil exited $rc on timely"
grep -q "checkpoint $TMP/ck2/ck-0001" "$TMP/out" || fail "no checkpoint of timely"
grep -q 'in-process tier: 2 functions patched again' "$TMP/out" || fail "timely not patched again"
grep -q 'timely: wait done, 1002' "$TMP/timely.out" || fail "timely went wrong under vigil"
gone "$tpid"
run_vigil restore "$TMP/ck2/ck-0001"
expect_rc 0
[ "$(vigil_maps "$tpid")" = 0 ] || fail "timely's image has vigil's mappings"
kill -CONT "$tpid"
gone "$tpid"
[ "$(grep -c 'timely: wait done, 1002' "$TMP/timely.out")" = 2 ] ||
	fail "the restored timely did not return from pthread_mutex_lock to its end: $(cat "$TMP/timely.out")"

# --- fork snapshots keep refusing it ------------------------------------
"$VIGIL" run --fast "$FAST" --snapshot=fork "$TMP/req.vigil" -- "$TARGETS/service" \
	>"$TMP/out" 2>&1 </dev/null &
vpid=$!
wait_for "$TMP/out" 'requests: (kernel|user) tier'
sleep 0.5
pkill -x service
wait "$vpid"
cat "$TMP/out"
grep -qF -- '--fast: --snapshot=fork: a snapshot is a fork of the patched process' "$TMP/out" ||
	fail "--snapshot=fork: no reason given for keeping the uprobes"
expect_no_out 'in-process tier: [0-9]+ function'
echo "fast_checkpoint: ok"
