# --follow-fork attaches the uprobes per process (the target, then each
# followed child), never for any process: an unrelated process running
# the same binary, started before vigil or while it runs, has no int3 in
# the probed function, while the target has one; every call of the
# followed child is still counted (the child is held at its fork until its
# probes are in); after vigil ends nothing of it is left (programs, links,
# perf events) and no process is left stopped -- also when vigil is
# interrupted while the target forks a child after another, whose links go
# with each child (vigil's descriptors do not grow with the forks).
. "$(dirname "$0")/lib.sh"

cat >"$TMP/work.vigil" <<'SPEC'
property calls "work is called"
int n = 0
state s accepting {
  before work(k) { n = n + 1; } -> s
}
SPEC

EXE=$(readlink -f "$TARGETS/forker")
read -r SYM SIZE < <(nm -S "$EXE" | awk '$4 == "work" { print $1, $2 }')
[ -n "$SYM" ] || fail "no work() in $EXE"
PIE=0
readelf -h "$EXE" | grep -q 'Type:.*DYN' && PIE=1

# work()'s bytes in process $1, one hex pair per line
work_bytes() {
	local base addr
	base=$(awk -v f="$EXE" '$6 == f && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' "/proc/$1/maps")
	[ -n "$base" ] || return 1
	addr=$((0x$SYM))
	[ "$PIE" = 1 ] && addr=$((0x$base + 0x$SYM))
	dd if="/proc/$1/mem" bs=4096 iflag=skip_bytes,count_bytes skip="$addr" \
		count=$((0x$SIZE)) 2>/dev/null | od -An -v -tx1 | tr -s ' ' '\n' | grep .
}

# the ids of vigil $1's BPF programs and links, as "prog N" / "link N"
vigil_objs() {
	cat "/proc/$1/fdinfo/"* 2>/dev/null |
		awk '$1 == "prog_id:" { print "prog", $2 } $1 == "link_id:" { print "link", $2 }' |
		sort -u
}

wait_for() {	# wait_for FILE [REGEX]: until FILE exists (and has REGEX), 20 s
	for _ in $(seq 200); do
		[ -e "$1" ] && { [ -z "${2:-}" ] || grep -qE -- "$2" "$1"; } && return 0
		sleep 0.1
	done
	return 1
}

# --- vigil run --follow-fork, and unrelated processes of the same binary --
"$TARGETS/forker" --idle &
idle1=$!
LEFT_PIDS+=("$idle1")
FORKER_HOLD="$TMP/go" "$VIGIL" run --follow-fork "$TMP/work.vigil" -- \
	"$TARGETS/forker" /bin/true >"$TMP/out" 2>&1 &
vpid=$!
LEFT_PIDS+=("$vpid")
wait_for "$TMP/go.ready" || { cat "$TMP/out"; fail "the target never got to its hold"; }
"$TARGETS/forker" --idle &
idle2=$!
LEFT_PIDS+=("$idle2")
sleep 0.3	# it has mapped the binary and called work()
parent=$(sed -nE 's/^vigil: pid ([0-9]+) forked pid [0-9]+: followed$/\1/p' "$TMP/out")
[ -n "$parent" ] || { cat "$TMP/out"; fail "no followed fork reported"; }
LEFT_PIDS+=("$parent")
objs=$(vigil_objs "$vpid")
[ -n "$objs" ] || fail "bpftool shows no program of vigil ($vpid)"

mapfile -t T < <(work_bytes "$parent")
[ "${#T[@]}" -eq $((0x$SIZE)) ] || fail "cannot read work() in the target"
traps=0
for i in "${!T[@]}"; do [ "${T[$i]}" = cc ] && traps=$((traps + 1)); done
[ "$traps" -gt 0 ] || fail "no int3 in the target's work(): ${T[*]}"
for p in "$idle1" "$idle2"; do
	mapfile -t I < <(work_bytes "$p")
	[ "${#I[@]}" -eq $((0x$SIZE)) ] || fail "cannot read work() in pid $p"
	for i in "${!T[@]}"; do
		[ "${T[$i]}" = cc ] && [ "${I[$i]}" = cc ] &&
			fail "unrelated pid $p has vigil's int3 in work() (+$i): ${I[*]}"
	done
done
echo "the target has $traps int3 in work(), the unrelated processes none"

touch "$TMP/go"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "forker: parent calls=10 child calls=5 child status=4"
expect_out "before:work=15( |$)"
expect_out "^vigil: pid [0-9]+: calls: live slices by state: s=1"
for p in "$idle1" "$idle2"; do
	[ "$(proc_state "$p")" != T ] || fail "unrelated pid $p is stopped"
done
kill "$idle1" "$idle2"
wait "$idle1" "$idle2" 2>/dev/null
# the kernel frees them once the last reference (vigil's fds) is gone
gone=0
for _ in $(seq 30); do
	left=$(while read -r kind id; do
		bpftool "$kind" show id "$id" >/dev/null 2>&1 && echo "$kind $id"
	done <<<"$objs")
	[ -z "$left" ] && { gone=1; break; }
	sleep 0.1
done
[ "$gone" = 1 ] || fail "left after vigil exited: $left"
! bpftool perf list 2>/dev/null | grep -q "filename $EXE " ||
	fail "uprobes left on $EXE: $(bpftool perf list | grep "$EXE")"

# --- vigil attach --follow-fork to a forking loop, interrupted ------------
"$TARGETS/forker" --loop 1500 >"$TMP/loop.out" &
lpid=$!
LEFT_PIDS+=("$lpid")
wait_exec "$lpid" "$EXE"
"$VIGIL" attach --follow-fork "$TMP/work.vigil" -p "$lpid" >"$TMP/out" 2>&1 &
vpid=$!
LEFT_PIDS+=("$vpid")
wait_for "$TMP/out" "forked pid [0-9]+: followed" ||
	{ cat "$TMP/out"; fail "vigil followed no fork"; }
sleep 3
nfd=$(ls "/proc/$vpid/fd" | wc -l)
kill -TERM "$vpid"
wait "$vpid"
RC=$?
grep -v "live slices" "$TMP/out"
nforks=$(sed -nE 's/.*forked ([0-9]+) process.*/\1/p' "$TMP/out")
echo "vigil had $nfd descriptors after $nforks forks"
[ "${nforks:-0}" -ge 20 ] || fail "only ${nforks:-0} forks followed"
[ "$nfd" -lt 100 ] || fail "vigil holds $nfd descriptors after $nforks forks: the links of ended children leak"
expect_out "detaching, the target runs on"
for _ in $(seq 300); do kill -0 "$lpid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$lpid" 2>/dev/null; then
	ps -o pid,stat,cmd --ppid "$lpid"
	fail "the forking target did not finish: a child left stopped?"
fi
wait "$lpid"
grep -q "forker: children=1500" "$TMP/loop.out" || fail "the target's children: $(cat "$TMP/loop.out")"
echo ok
