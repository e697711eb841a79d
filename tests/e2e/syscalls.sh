# `syscall name(args)` events from the raw_syscalls:sys_enter tracepoint
# (tests/targets/syscaller.c): arguments by position, str(path) of a
# pointer argument, exact counts; an unknown system call is an error with
# the spec line and the names it resembles.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/sys.vigil" <<'SPEC'
property five_opens "/dev/null is opened exactly five times, for writing"
state o0 accepting {
  syscall openat(dirfd, path, flags) when str(path) == "/dev/null" && (flags & 3) == 1 -> o1
}
state o1 accepting {
  syscall openat(dirfd, path, flags) when str(path) == "/dev/null" -> o2
}
state o2 accepting {
  syscall openat(dirfd, path, flags) when str(path) == "/dev/null" -> o3
}
state o3 accepting {
  syscall openat(dirfd, path, flags) when str(path) == "/dev/null" -> o4
}
state o4 accepting {
  syscall openat(dirfd, path, flags) when str(path) == "/dev/null" -> o5
}
state o5 accepting {
  syscall openat(dirfd, path, flags) when str(path) == "/dev/null" -> o6
}
state o6 violation

property one_byte "writes to the files it opens are one byte"
state s accepting {
  syscall write(fd, buf, n) when fd > 2 && n != 1 -> bad
}
state bad violation
SPEC

run_vigil run --json "$TMP/v.jsonl" "$TMP/sys.vigil" -- "$TARGETS/syscaller"
expect_rc 0
expect_out "syscaller: opens=5 writes=15"
expect_out "five_opens: user tier because event syscall openat is not a function call"
expect_out "five_opens: live slices by state: o0=0 o1=0 o2=0 o3=0 o4=0 o5=1 o6=0"
expect_out "syscall:write=16( |$)"
expect_no_out "VIOLATION"
grep -q '"kind":"syscall","name":"write","hits":16' "$TMP/v.jsonl" || fail "JSON probe counts"

cat >"$TMP/typo.vigil" <<'SPEC'
property p "a typo"
state s accepting {
  syscall opne(path) -> s
}
SPEC
run_vigil run "$TMP/typo.vigil" -- "$TARGETS/syscaller"
expect_rc 2
expect_out "typo.vigil:3:3: 'opne' is not a Linux x86-64 system call \(similar: open\)"
echo ok
