# Every reader bounds what it buffers: a trace that is a device or a binary
# file, a spec that is a data file, a recording cut short, a -D value of a
# file's size. Each ends in exit status 2 with the file and the line (or
# byte) named, within a second and under 64 MB of memory (peak RSS, from
# /usr/bin/time). Before the bound, /dev/zero as a trace grew to 7 GB.
. "$(dirname "$0")/lib.sh"

# bounded RC MESSAGE-ERE CMD...: status RC, the message, < 1 s, < 64 MB
bounded() {
	local want=$1 msg=$2
	shift 2
	echo "+ $*"
	/usr/bin/time -f '%e %M' -o "$TMP/time" timeout 20 "$@" >"$TMP/out" 2>&1
	RC=$?
	cut -c1-300 "$TMP/out"
	# (time's first line may be "Command exited with non-zero status")
	read -r secs kb < <(tail -1 "$TMP/time") || fail "no time for $*"
	echo "$secs s, $kb KB"
	expect_rc "$want"
	expect_out "$msg"
	awk -v s="$secs" 'BEGIN { exit !(s < 1.0) }' || fail "$* took ${secs}s"
	[ "$kb" -lt 65536 ] || fail "$* used ${kb} KB at its peak"
}

head -c 100000000 /dev/urandom >"$TMP/random.bin"

bounded 2 '^vigil: /dev/zero:1: line longer than 65536 bytes \(from byte 0\): not a CSV trace' \
	"$VIGIL" check specs/unsafe_iter.vigil /dev/zero
bounded 2 "^vigil: $TMP/random.bin:[0-9]+:[0-9]+: byte 0x[0-9a-f]{2} \(byte [0-9]+ of the file\): not a CSV trace" \
	"$VIGIL" check specs/unsafe_iter.vigil "$TMP/random.bin"
# a text line of a CSV trace has a bound too: 1 MB without a newline
{ printf 'create,1,2\n'; head -c 1000000 /dev/zero | tr '\0' x; } >"$TMP/long.csv"
bounded 2 "^vigil: $TMP/long.csv:2: line longer than 65536 bytes \(from byte 11\)" \
	"$VIGIL" check specs/unsafe_iter.vigil "$TMP/long.csv"
# the random bytes as a spec: refused before they are all read
bounded 2 "^vigil: $TMP/random.bin: error: cannot read: larger than 4 MiB, not a spec file" \
	"$VIGIL" check "$TMP/random.bin" tests/traces/unsafe_iter.csv
# a -D value of a file's size
bounded 2 '^vigil: -D NAME=x+\.\.\.: the value is 100000 bytes, at most 4096' \
	"$VIGIL" check -D "NAME=$(head -c 100000 /dev/zero | tr '\0' x)" specs/unsafe_iter.vigil tests/traces/unsafe_iter.csv

# a recording cut short names the record and the byte where it broke
run_vigil run --tier=user --record "$TMP/q.rec" specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 0
# (from byte 1500 on, the first cut that falls inside a record: one at a
# record's end is a shorter recording, rightly read to its end)
for cut in $(seq 1500 1600); do
	head -c "$cut" "$TMP/q.rec" >"$TMP/cut.rec"
	"$VIGIL" check specs/queue_bounds.vigil "$TMP/cut.rec" >/dev/null 2>&1
	[ $? = 2 ] && break
done
bounded 2 "^vigil: $TMP/cut.rec: record [0-9]+ \(near byte $cut\) is truncated or corrupt" \
	"$VIGIL" check specs/queue_bounds.vigil "$TMP/cut.rec"
# a recording's magic followed by random bytes
{ printf 'VIGILREC'; head -c 10000000 "$TMP/random.bin"; } >"$TMP/bad.rec"
bounded 2 "^vigil: $TMP/bad.rec: (recording version|corrupt header|truncated)" \
	"$VIGIL" check specs/queue_bounds.vigil "$TMP/bad.rec"
echo "every reader stopped within a second and 64 MB"
