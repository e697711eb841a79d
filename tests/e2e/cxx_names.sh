# C++ functions named as written (Queue::push(int), Queue::Queue,
# Queue::~Queue, "operator new[]", templates, overloads), resolved from
# the demangled symbol tables with and without DWARF; a use after the
# destructor stopped, demangled names in the report, the stacks and gdb's bt.
. "$(dirname "$0")/lib.sh"

# --- what each name resolves to (lint --binary) ---------------------------
cat >"$TMP/names.vigil" <<'SPEC'
property names
state s {
  before shop::Queue::push(q) -> s
  before "shop::Queue::push(const char *)"(q, str) -> s
  before Queue::push(int)(q, v) -> s
  before "Queue::operator[]"(q, i) -> s
  before "Box::get"(b) -> s
  before "Box<long>::get"(b) -> s
  before shop::Rect::area(r) -> s
  before Queue::~Queue(q) -> s
  after "operator new[]"(n) returns p -> s
}
SPEC
for bin in cxxqueue cxxqueue-nodebug; do
	run_vigil lint --binary "$TARGETS/$bin" "$TMP/names.vigil"
	expect_rc 0
	# an unqualified overload set: both overloads
	expect_out "^probe before shop::Queue::push: .*\(shop::Queue::push\(int\)\)"
	expect_out "^probe before shop::Queue::push: .*\(shop::Queue::push\(char const\*\)\)"
	# a parameter list selects one, written either way
	expect_out "^probe before shop::Queue::push\(const char \*\): .*\(shop::Queue::push\(char const\*\)\)"
	[ "$(grep -c '^probe before Queue::push(int): ' "$TMP/out")" = 1 ] ||
		fail "Queue::push(int) does not select one overload"
	expect_out "^probe before Queue::operator\[\]: .*\(shop::Queue::operator\[\]\(int\) const\)"
	# template arguments left out: every instantiation; given: that one
	expect_out "^probe before Box::get: .*\(Box<int>::get\(\) const\)"
	expect_out "^probe before Box::get: .*\(Box<long>::get\(\) const\)"
	[ "$(grep -c '^probe before Box<long>::get: ' "$TMP/out")" = 1 ] ||
		fail "Box<long>::get is not one function"
	expect_out "^probe before shop::Rect::area: .*\(shop::Rect::area\(\) const\)"
	# the complete and base destructors; not the deleting one
	expect_out "^probe before Queue::~Queue: .*\(shop::Queue::~Queue\(\)\)"
	# in libstdc++, all four forms of new[]
	[ "$(grep -c '^probe after operator new\[\]: .*libstdc++.*(operator new\[\](unsigned long' "$TMP/out")" = 4 ] ||
		fail "operator new[] is not its four overloads in libstdc++"
	# `this` is the method's first parameter: no warning for naming it q
	expect_no_out "calls it 'this'"
done
run_vigil lint --binary "$TARGETS/cxxqueue" "$TMP/names.vigil"
expect_out "^    q: class Queue \* const in %rdi"

# the calls each name sees in a run: an overload set (push("two") calls
# push(int)), one overload, an operator, template instantiations, a
# virtual method called through its base, the destructors of a stack and
# a heap object, new[] in libstdc++
run_vigil run --tier=kernel "$TMP/names.vigil" -- "$TARGETS/cxxqueue" clean
expect_rc 0
for c in "before:shop::Queue::push=4" "before:shop::Queue::push\(const char \*\)=1" \
	"before:Queue::push\(int\)=3" "before:Queue::operator\[\]=1" \
	"before:Box::get=2" "before:Box<long>::get=1" "before:shop::Rect::area=1" \
	"before:Queue::~Queue=2" "after:operator new\[\]=3"; do
	expect_out "vigil: stats: .*$c( |$)"
done

# --- unknown and ambiguous names: exit 2, the close candidates -----------
printf 'property p\nstate s { before Queue::pus(q) -> s }\n' >"$TMP/bad.vigil"
run_vigil lint --binary "$TARGETS/cxxqueue" "$TMP/bad.vigil"
expect_rc 2
expect_out "bad.vigil:2:11: function 'Queue::pus' not found in .*cxxqueue or its [0-9]+ libraries; close candidates: shop::Queue::push\(int\), shop::Queue::push\(char const\*\)"
printf 'property p\nstate s { before area(s) -> s }\n' >"$TMP/bad.vigil"
run_vigil lint --binary "$TARGETS/cxxqueue" "$TMP/bad.vigil"
expect_rc 2
expect_out "function 'area' is ambiguous in .*cxxqueue: it names shop::(Rect|Square)::area\(\) and shop::(Rect|Square)::area\(\)"
printf 'property p\nstate s { before Queue::push(long)(q) -> s }\n' >"$TMP/bad.vigil"
run_vigil lint --binary "$TARGETS/cxxqueue" "$TMP/bad.vigil"
expect_rc 2
expect_out "function 'Queue::push\(long\)' not found .*close candidates: shop::Queue::push\(int\)"
printf 'property p\nstate s { before Queue::(q) -> s }\n' >"$TMP/bad.vigil"
run_vigil lint "$TMP/bad.vigil"
expect_rc 2
expect_out "bad.vigil:2:25: error: unexpected '\(', expected a name after '::' or '~'"

# --- a Queue used after its destructor: both tiers, both builds ----------
for run in cxxqueue:kernel cxxqueue:user cxxqueue-nodebug:kernel; do
	bin=${run%:*} tier=${run#*:}
	{
		run_vigil run --tier=$tier specs/queue_destroyed.vigil -- "$TARGETS/$bin" clean
		expect_rc 0
		expect_no_out VIOLATION
		expect_out "before:Queue::push\(int\)=[1-9]"

		run_vigil run --tier=$tier --json "$TMP/v.json" specs/queue_destroyed.vigil -- "$TARGETS/$bin" use-after-destroy
		pid=$(stopped_pid)
		[ -n "$pid" ] && LEFT_PIDS+=("$pid")
		expect_rc 1
		expect_out "state  destroyed -> used_after_destroy"
		expect_out "event  before Queue::push\(int\)\(0x[0-9a-f]+( \(.*\))?\)"
		expect_out "before Queue::~Queue\(0x[0-9a-f]+( \(.*\))?\)  alive -> destroyed"
		# stacks demangled, as gdb writes them
		expect_out "at shop::Queue::push\(int\)\+0x0"
		expect_out "at shop::Queue::~Queue\(\)\+0x0"
		grep -q '"name":"Queue::push(int)".*"stack":\["shop::Queue::push(int)+0x0' "$TMP/v.json" ||
			fail "--json lacks the event or its demangled stack"
		if [ $tier = kernel ]; then
			[ "$(proc_state "$pid")" = T ] || fail "target not stopped"
			gdb_handoff "-ex bt -ex 'vigil status'"
			cat "$TMP/gdb"
			expect_frame 0 "shop::Queue::push" "not stopped in shop::Queue::push"
			expect_frame 1 "main" "main is not the caller"
			grep -qE "before Queue::push\(int\)\(0x[0-9a-f]+( \(.*\))?\)" "$TMP/gdb" ||
				fail "gdb's vigil status lacks the C++ event"
			kill -KILL "$pid"
		fi
	}
done
echo "cxx_names: ok"
