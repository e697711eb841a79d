# --view: the live page. The queue example runs about 6 s (--slow) under
# vigil --view; while it runs, the event stream must bring at least 4
# frames a second, and the page in headless Chromium (view_browser.py)
# must see its counts change; after the violation the page must show the
# frozen picture: the violation, and per-state and per-edge counts equal
# to vigil's own stats. The token guards every request but the page's
# static files. VIEW_SCREENSHOT=docs/view.png bash tests/e2e/view.sh
# refreshes docs/reference/live-view.md's picture (the running page, kernel tier).
. "$(dirname "$0")/lib.sh"

command -v chromium >/dev/null || fail "chromium is not installed (scripts/setup.sh installs it)"

browser() {
	timeout 120 /usr/bin/python3 "$(dirname "$0")/view_browser.py" "$@" ||
		fail "the page in Chromium: see above"
}

for tier in kernel user; do
	echo "+ vigil run --view --tier=$tier queue_bounds.vigil -- queue --bug --slow"
	"$VIGIL" run --view --tier=$tier specs/queue_bounds.vigil -- \
		"$TARGETS/queue" --bug --slow >"$TMP/out" 2>&1 &
	vpid=$!
	LEFT_PIDS+=("$vpid")	# a lingering vigil, should the test fail
	wait_for "$TMP/out" "^vigil: live view at http://127\.0\.0\.1:[0-9]+/\?t=[0-9a-f]{32}$" 60
	url=$(sed -nE 's/^vigil: live view at (.*)$/\1/p' "$TMP/out")
	base=${url%%/\?*}
	token=${url#*\?t=}
	shot=()
	[ "$tier" = kernel ] && [ -n "${VIEW_SCREENSHOT:-}" ] &&
		shot=(--shot "$(realpath "$VIEW_SCREENSHOT")")
	browser "$url" "$TMP/page.json" --changing "${shot[@]}" &
	bpid=$!

	# the token guards the monitor's state (a wrong last digit too)
	case $token in *0) other=1 ;; *) other=0 ;; esac
	for bad in "$base/" "$base/events" "$base/?t=0123" "$base/graph.svg?t=${token%?}$other"; do
		code=$(curl -s -o /dev/null -w '%{http_code}' -m 5 "$bad")
		[ "$code" = 403 ] || fail "$bad answered $code, not 403"
	done
	curl -sf -m 5 "$base/view.js" | grep -q EventSource || fail "view.js not served"
	curl -sf -m 5 "$base/graph.svg?t=$token" >"$TMP/graph.svg" || fail "no graph.svg"
	for id in p0_s0 p0_s1 p0_s2 p0_s3 p0_t0 p0_t1 p0_t2 p0_t3 p0_t4; do
		grep -q "id=\"$id\"" "$TMP/graph.svg" || fail "graph.svg has no $id"
	done

	# 1.5 s of the stream while the program runs: frames carry their time
	timeout 1.5 curl -sN "$base/events?t=$token" >"$TMP/frames" || true
	rate=$(grep '"phase":"running"' "$TMP/frames" | grep -oE '"t_ms":[0-9]+' | cut -d: -f2 |
		awk 'NR == 1 { a = $1 } { b = $1; n++ } END { if (n > 1 && b > a) printf "%.1f", (n - 1) * 1000 / (b - a); else print 0 }')
	echo "frames a second while running: $rate ($(grep -c '"phase":"running"' "$TMP/frames") frames)"
	awk -v r="$rate" 'BEGIN { exit !(r >= 4) }' || fail "$rate frames a second, not at least 4"
	first=$(grep -m1 -o '"events":[0-9]*' "$TMP/frames" | cut -d: -f2)
	lastev=$(grep -o '"events":[0-9]*' "$TMP/frames" | tail -1 | cut -d: -f2)
	[ "$lastev" -gt "$first" ] || fail "the event count did not grow ($first, $lastev)"

	# the page asks for the slices of a state: the frames list them, with
	# their variables (the kernel tier's, read from its table)
	curl -sf -m 5 "$base/select?t=$token&prop=0&state=1" >/dev/null || fail "/select failed"
	timeout 1 curl -sN "$base/events?t=$token" >"$TMP/frames" || true
	grep -qE '"selected":\{"prop":0,"state":1,"total":1,"slices":\[\{"slice":\{"q":"0x[0-9a-f]+"\},"vars":\{"n":[0-8],"max":8\},"inconclusive":false\}\]\}' "$TMP/frames" ||
		fail "no slice of ready listed after /select: $(tail -c 300 "$TMP/frames")"

	# the page in a browser while the program runs (started first: a
	# browser takes a while to start): its counts must change
	wait "$bpid" || fail "the page in Chromium did not see the counts change"
	cat "$TMP/page.json"; echo
	grep -q '"phase": "running"' "$TMP/page.json" || fail "the page did not see the program running"

	wait_for "$TMP/out" "the view keeps the final picture" 60
	cat "$TMP/out"
	pid=$(stopped_pid)
	phase=stopped
	if [ -n "$pid" ]; then
		LEFT_PIDS+=("$pid")
		[ "$(proc_state "$pid")" = T ] || fail "the target is not left stopped"
	elif [ "$tier" = user ] && grep -q "could not be stopped: it is exiting" "$TMP/out"; then
		# the user tier stops asynchronously: the program may end first
		phase=exited
	else
		fail "the target is not left stopped"
	fi

	# the frozen picture, as a browser shows it
	browser "$url" "$TMP/page.json" --final
	cat "$TMP/page.json"; echo
	page() { /usr/bin/python3 -c "import json,sys; print(eval(sys.argv[1], json.load(open(sys.argv[2]))))" "$1" "$TMP/page.json"; }
	[ "$(page phase)" = $phase ] || fail "the page says $(page phase), not $phase"
	page 'violations[0]' | grep -qE '^before queue_push\(0x[0-9a-f]+\)$' ||
		fail "the page does not show the violation's event"
	counts=$(sed -nE 's/^vigil: queue_bounds: live slices by state: (.*)$/\1/p' "$TMP/out")
	i=0
	for kv in $counts; do
		n=$(page "counts[$i]")
		[ "$n" = "${kv#*=}" ] || fail "the page shows $n slices in ${kv%=*}, vigil's stats ${kv#*=}"
		i=$((i + 1))
	done
	[ "$i" -eq 4 ] || fail "no per-state counts in vigil's output"
	[ "$(page "nodes[3][1][1]")" = "1 slice" ] || fail "the picture's overflow state does not say 1 slice"
	fired() { page "fired[$1]"; }
	pushes=$(sed -nE 's/.*before:queue_push=([0-9]+).*/\1/p' "$TMP/out")
	pops=$(sed -nE 's/.*before:queue_pop=([0-9]+).*/\1/p' "$TMP/out")
	[ "$(fired 0)" = 1 ] || fail "queue_new's edge fired $(fired 0) times, not once"
	[ $(($(fired 1) + $(fired 2))) = "$pushes" ] || fail "push edges fired $(fired 1)+$(fired 2) times, vigil counted $pushes pushes"
	[ "$(fired 2)" = 1 ] || fail "the overflow edge fired $(fired 2) times, not once"
	popped=$(($(fired 3) + $(fired 4)))
	if [ "$tier" = kernel ]; then
		[ "$popped" = "$pops" ] || fail "pop edges fired $popped times, vigil counted $pops pops"
	else
		# the user tier's stop comes late: pops after the violation
		# reach a finished slice, which takes no transition
		[ "$popped" -le "$pops" ] && [ "$popped" -ge $((pops - 100)) ] ||
			fail "pop edges fired $popped times, vigil counted $pops pops"
	fi

	# Ctrl-C ends the lingering vigil; the target stays as the run left it
	kill -INT "$vpid"
	wait "$vpid"
	RC=$?
	expect_rc 1
	if [ -n "$pid" ]; then
		[ "$(proc_state "$pid")" = T ] || fail "the target did not stay stopped after vigil ended"
		kill -KILL "$pid"
	fi
done

# a program that exits: the final verdicts, phase "exited"
"$VIGIL" run --view specs/queue_bounds.vigil -- "$TARGETS/queue" >"$TMP/out" 2>&1 &
vpid=$!
LEFT_PIDS+=("$vpid")
wait_for "$TMP/out" "the view keeps the final picture" 60
url=$(sed -nE 's/^vigil: live view at (.*)$/\1/p' "$TMP/out")
timeout 2 curl -sN "${url%%/\?*}/events?t=${url#*\?t=}" >"$TMP/frames" || true
grep -q '"phase":"exited"' "$TMP/frames" || fail "no final frame after the exit"
grep -q '"violations":\[\]' "$TMP/frames" || fail "violations listed in a clean run"
kill -TERM "$vpid"
wait "$vpid"
RC=$?
expect_rc 0

# vigil view PID: a session started without --view opens its page through
# its control socket; the same URL twice; and the run ends as it would
# have (no lingering: no page was asked for on its command line)
"$VIGIL" run specs/queue_bounds.vigil -- "$TARGETS/queue" --slow >"$TMP/out" 2>&1 &
vpid=$!
LEFT_PIDS+=("$vpid")
wait_for "$TMP/out" "queue_bounds: kernel tier" 60
target=""
for _ in $(seq 300); do
	target=$(pgrep -f "^$TARGETS/queue --slow" | head -1)
	[ -n "$target" ] && [ "$(readlink "/proc/$target/exe")" = "$(readlink -f "$TARGETS/queue")" ] && break
	sleep 0.1
done
[ -n "$target" ] || fail "the queue did not start"
sleep 0.5	# its session's loop serves the control socket
url=$("$VIGIL" view "$target") || fail "vigil view $target failed"
echo "$url" | grep -qE '^http://127\.0\.0\.1:[0-9]+/\?t=[0-9a-f]{32}$' || fail "vigil view printed '$url'"
[ "$("$VIGIL" view "$target")" = "$url" ] || fail "a second vigil view gave another URL"
timeout 1.5 curl -sN "${url%%/\?*}/events?t=${url#*\?t=}" >"$TMP/frames" || true
grep -q '"phase":"running"' "$TMP/frames" || fail "no frame from the page vigil view opened"
wait "$vpid"
RC=$?
expect_rc 0
expect_no_out "keeps the final picture"
run_vigil view
expect_rc 2
expect_out "no PID given"

# bad options
run_vigil run --view-addr not-an-address specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 2
expect_out "--view-addr: 'not-an-address' is not a numeric IPv4 address"
run_vigil run --view-port 70000 specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 2
expect_out "--view-port: '70000' is not a port number"
echo "view: ok"
