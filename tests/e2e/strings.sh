# str(p): C strings read by the probe (tests/targets/names.c): a `const
# char *` parameter, a char array member, a `char *` member, libc's fopen
# path, NULL (reads as ""), a 100-byte name (read up to 63 bytes). Shown
# in the report and JSON, carried by a recording, refused by the kernel
# tier with the reason; str(p) works without DWARF, str(p->field) says it
# needs it; str of an int is an error at the spec line.
. "$(dirname "$0")/lib.sh"

x63=$(printf 'x%.0s' $(seq 63))
cat >"$TMP/names.vigil" <<SPEC
property no_root_login "root never logs in with a uid other than 0"
state s accepting {
  before login(name, uid) when str(name) == "root" && uid != 0 -> bad
}
state bad violation

property guest_grants "guests never get admin"
state s accepting {
  before grant(u, perm) when str(u->name) == "guest" && (str(perm) == "admin" || str(u->role) == "admin") -> bad
}
state bad violation

property long_name "a name is read up to 63 bytes, NULL is empty"
state s accepting {
  before login(name, uid) when uid == 5 && str(name) == "$x63" -> cut
  before login(name, uid) when uid == 7 && str(name) != "" -> bad
}
state cut accepting
state bad violation

property opens "fopen's path, in libc"
state s nonaccepting {
  after fopen(filename, mode) returns f when str(filename) == "/dev/null" && str(mode) == "r" && f != null -> seen
}
state seen accepting
SPEC

run_vigil run "$TMP/names.vigil" -- "$TARGETS/names"
expect_rc 0
expect_out "no_root_login: user tier because before login reads a C string \(str\)"
expect_out "names: logins=4 grants=2 opens=1"
expect_out "before:login=4 before:grant=2 after:fopen=1"
expect_out "long_name: live slices by state: s=0 cut=1 bad=0"
expect_out "opens: live slices by state: s=0 seen=1"
expect_no_out "VIOLATION|warning|faulted"

run_vigil run --on-violation=continue --json "$TMP/v.jsonl" --record "$TMP/n.rec" "$TMP/names.vigil" -- "$TARGETS/names" --bug
expect_rc 1
expect_out "event  before login\(0x[0-9a-f]+, 1002\) with str\(name\)=\"root\""
expect_out "with str\(u->name\)=\"guest\" str\(perm\)=\"admin\" str\(u->role\)=\"visitor\""
grep -q '"read":{"str(name)":"root"}' "$TMP/v.jsonl" || fail "the JSON lacks the string"

# the recording carries the strings
run_vigil check "$TMP/names.vigil" "$TMP/n.rec"
expect_rc 1
expect_out "VIOLATION of no_root_login"
expect_out "VIOLATION of guest_grants"
expect_out "str\(u->role\)=\"visitor\""
expect_out "opens: live slices by state: s=0 seen=1"

# the kernel tier compares numbers, not strings
run_vigil run --tier=kernel "$TMP/names.vigil" -- "$TARGETS/names"
expect_rc 2
expect_out "no_root_login cannot run in the kernel tier: before login reads a C string"

# without DWARF: str(p) needs only the pointer; str(p->field) needs types
cp "$TARGETS/names" "$TMP/names-nodwarf"
strip --strip-debug "$TMP/names-nodwarf"
sed -n '1,5p' "$TMP/names.vigil" >"$TMP/root.vigil"
run_vigil run "$TMP/root.vigil" -- "$TMP/names-nodwarf" --bug
pid=$(stopped_pid)	# left stopped at the violation: not for good
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "with str\(name\)=\"root\""
run_vigil run "$TMP/names.vigil" -- "$TMP/names-nodwarf"
expect_rc 2
expect_out "names.vigil:9:[0-9]+: cannot read 'str\(u->name\)': .*names-nodwarf"

# str of something that is not a char pointer
cat >"$TMP/int.vigil" <<'SPEC'
property p "str of an int"
state s accepting {
  before login(name, uid) when str(uid) == "0" -> s
}
SPEC
run_vigil run "$TMP/int.vigil" -- "$TARGETS/names"
expect_rc 2
expect_out "int.vigil:3:[0-9]+: cannot read 'str\(uid\)': it is a int.*not a pointer"
echo ok
