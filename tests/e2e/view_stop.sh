# --view in a live gdb session: when a reaction stops the program and gdb
# takes the stop, monitoring goes on, and the page says at once that the
# program is stopped at the violation (the features' stop hook), and no
# "running" frame follows while gdb holds it. Read with curl from inside
# gdb (`shell`), while the program waits at the stop.
. "$(dirname "$0")/lib.sh"

for tier in kernel user; do
	start_live run --interactive --view --tier=$tier specs/queue_bounds.vigil -- "$TARGETS/queue3"
	url=$(sed -nE 's/^vigil: live view at (.*)$/\1/p' "$TMP/vigil.err")
	[ -n "$url" ] || { cat "$TMP/vigil.err"; fail "$tier tier: no live view URL"; }
	base=${url%%/\?*}
	token=${url#*\?t=}
	stream="timeout 1.5 curl -sN '$base/events?t=$token'"
	live_gdb "-ex continue -ex 'shell $stream >$TMP/at_stop' -ex continue -ex continue -ex continue"
	# a page asked for on the command line keeps the final picture
	# until Ctrl-C
	wait_for "$TMP/vigil.err" "the view keeps the final picture" 60
	kill -INT "$VIGIL_PID"
	wait_vigil
	expect_rc 1
	grep -q 'vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb" ||
		fail "$tier tier: gdb did not stop at the violation"
	echo "+ the page at the first stop:"
	grep -oE '"phase":"[a-z]+"|"note":"[^"]*"' "$TMP/at_stop" | uniq -c
	grep -q '"phase":"stopped"' "$TMP/at_stop" ||
		fail "$tier tier: the page does not say the program is stopped while gdb holds it"
	grep -qE '"note":"the program \(pid [0-9]+\) is stopped at the violation, thread [0-9]+"' "$TMP/at_stop" ||
		fail "$tier tier: the stopped frame does not name the process and thread"
	grep -q '"phase":"running"' "$TMP/at_stop" &&
		fail "$tier tier: a running frame while the program is stopped"
done
echo "PASS"
