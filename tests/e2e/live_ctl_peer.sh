# The control socket's peer check (issue 17 point 5, docs/CONTROL.md):
# the run directory is 0700 and the socket 0600, and should both be
# opened up, vigil still drops a connection from another user (its
# SO_PEERCRED) without an answer, while its own user (root) is answered.
. "$(dirname "$0")/lib.sh"

# a run directory of the test's own, so that it may open it up
mkdir -p "$TMP/run"
grep -v '^on enter' specs/queue_bounds.vigil >"$TMP/qb.vigil"
: >"$TMP/hold"
TMPDIR="$TMP/run" QUEUE3_HOLD="$TMP/hold" "$VIGIL" run --on-violation=continue "$TMP/qb.vigil" -- \
	"$TARGETS/queue3" >"$TMP/vigil.out" 2>"$TMP/vigil.err" </dev/null &
VIGIL_PID=$!
sock=
for _ in $(seq 200); do
	pid=$(pgrep -P "$VIGIL_PID" -x queue3) && sock="$TMP/run/vigil-$(id -u)/ctl-$pid.sock" && [ -S "$sock" ] && break
	sleep 0.05
done
[ -S "$sock" ] || { cat "$TMP/vigil.err"; fail "no control socket in the run directory TMPDIR names"; }
LEFT_PIDS+=("$pid")
[ "$(stat -c %a "$TMP/run/vigil-$(id -u)")" = 700 ] || fail "the run directory is not 0700"
[ "$(stat -c %a "$sock")" = 600 ] || fail "the control socket is not 0600"

ask() {	# ask UID: status over the socket as user UID; prints the answer
	setpriv --reuid="$1" --regid="$1" --clear-groups /usr/bin/python3 - "$sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(sys.argv[1])
data = b""
try:
    s.sendall(b'{"v":1,"cmd":"status"}\n')
    while b"\n" not in data:
        c = s.recv(65536)
        if not c:
            break
        data += c
except (ConnectionResetError, BrokenPipeError):    # dropped
    pass
print("ANSWER:" + data.decode().strip())
PY
}
chmod 0711 "$TMP" "$TMP/run" "$TMP/run/vigil-$(id -u)"
chmod 0666 "$sock"
ask 65534 >"$TMP/other" 2>&1
cat "$TMP/other"
grep -q '^ANSWER:$' "$TMP/other" || fail "another user's connection was not dropped without an answer"
ask 0 >"$TMP/own" 2>&1
grep -q '^ANSWER:{.*"ok": *true' "$TMP/own" || { cat "$TMP/own"; fail "vigil's own user got no answer"; }
chmod 0700 "$TMP/run/vigil-$(id -u)"

rm "$TMP/hold"
wait "$VIGIL_PID"
RC=$?
expect_rc 1
cat "$TMP/vigil.err"
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program did not run to its end"
echo PASS
