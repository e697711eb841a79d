/* The property language: specs that must be refused (with file:line:col,
 * the source line and a caret), includes, all-or-nothing loading, and the
 * linter's warnings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec.h"

/* The message vigil must print for an error at line:col of src: the
 * position, the line itself, and a caret under the column (tabs kept so
 * that it lines up). */
static void expected_msg(char *out, size_t len, const char *file,
			 const char *src, int line, int col, const char *what)
{
	const char *p = src;
	size_t n, o;

	for (int l = 1; l < line; l++)
		p = strchr(p, '\n') + 1;
	n = strcspn(p, "\n");
	o = (size_t)snprintf(out, len, "%s:%d:%d: error: %s\n%.*s\n", file,
			     line, col, what, (int)n, p);
	for (int i = 0; i < col - 1; i++)
		out[o++] = (size_t)i < n && p[i] == '\t' ? '\t' : ' ';
	out[o++] = '^';
	out[o++] = '\n';
	out[o] = 0;
}

static const struct bad {
	const char *src;
	int line, col;
	const char *what;
} bad[] = {
	{ "state a\n", 1, 1, "unexpected 'state', expected 'property', 'param', 'fast' or 'include'" },
	{ "property\n", 2, 1, "unexpected end of file, expected a property name after 'property'" },
	{ "property 3\n", 1, 10, "unexpected number 3, expected a property name after 'property'" },
	{ "property p\nslice q\n", 2, 7, "unexpected 'q', expected 'on' after 'slice'" },
	{ "property p\nslice on a, b, c, d, e\nstate s\n", 2, 22, "too many slice parameters, expected at most 4" },
	{ "property p\nslice on a\nslice on b\nstate s\n", 3, 1, "second 'slice on' in property p, expected one list of slice parameters (first at line 2)" },
	{ "property p\nfoo\n", 2, 1, "unexpected 'foo', expected slice, a variable declaration, clock, event, state, on, property, param or include" },
	{ "property p\nglobal foo\n", 2, 8, "unexpected 'foo', expected a type (int, int64, uint, uint64, bool, ptr, string) after 'global'" },
	{ "property p\nint\n", 3, 1, "unexpected end of file, expected a variable name" },
	{ "property p\nint x = \n", 3, 1, "unexpected end of file, expected an expression" },
	{ "property p\n", 1, 1, "property p has no states, expected at least one 'state'" },
	{ "property p\nstate s {\n  before f(x) -> t\n}\n", 3, 18, "unknown state 't', expected a state of property p" },
	{ "property p\nstate s {\n  before f(x)\n}\n", 4, 1, "unexpected '}', expected 'when', '{' or '->' after the event" },
	{ "property p\nstate s {\n  before f(x) when x > \n}\n", 4, 1, "unexpected '}', expected an expression" },
	{ "property p\nstate s {\n  before f(q -> s\n}\n", 3, 14, "unexpected '->', expected ',' or ')' after a parameter" },
	{ "property p\nstate s {\n  before (x) -> s\n}\n", 3, 3, "'before' without a function name, expected 'before NAME(...)' (or a declaration 'event before(...)')" },
	{ "property p\nstate s {\n  syscall 5 -> s\n}\n", 3, 11, "unexpected number 5, expected a system call name" },
	{ "property p\nstate s {\n  before f(*_) -> s\n}\n", 3, 13, "'*_' names nothing, expected '*name' or '_'" },
	{ "property p\nstate s {\n  syscall read(*x) -> s\n}\n", 3, 17, "'*x' reads target memory, which only function events (before/after) can do, expected a name" },
	{ "property p\nstate s {\n  after f(*x) when x->a > 0 -> s\n}\n", 3, 20, "'x' is already read from memory (its pattern says '*x'), expected a name the event passes" },
	{ "property p\nstate s {\n  before f(x) outside -> s\n}\n", 3, 23, "unexpected '->', expected a function name after 'outside'" },
	{ "property p\nstate s {\n  syscall read(x) outside g -> s\n}\n", 3, 19, "unexpected 'outside', expected 'when', '{' or '->' after the event" },
	{ "property p\nstate s {\n  after f() returns -> s\n}\n", 3, 21, "unexpected '->', expected a name for the return value after 'returns'" },
	{ "property p\nstate s {\n  before f() -> \n}\nint x = \"\\q\"\n", 4, 1, "unexpected '}', expected a target state name after '->'" },
	{ "property p\nstate s { before f() -> s\n", 3, 1, "unexpected end of file, expected a transition (before, after, write, read, access, change, syscall, exit, signal, thread_start, thread_exit or a declared event) or '}'" },
	{ "property p\nstate s {\n  bogus -> s\n}\n", 3, 3, "unexpected 'bogus', expected a transition (before, after, write, read, access, change, syscall, exit, signal, thread_start, thread_exit or a declared event followed by '(')" },
	{ "property p\nstate s {\n  write 3 -> s\n}\n", 3, 9, "cannot watch this expression, expected a variable, *p or p->field" },
	{ "property p\nstate s {\n  exit(a, b) -> s\n}\n", 3, 11, "too many parameters, expected at most 1" },
	{ "property p\nstate s {\n  before f(a,b,c,d,e,f,g,h,i) -> s\n}\n", 3, 28, "too many parameters, expected at most 8" },
	{ "property p\nstate s {\n  before f() { n $= 1; } -> s\n}\n", 3, 18, "expected a parameter name after '$'" },
	{ "property p\nint n\nstate s {\n  before f() { n 1; } -> s\n}\n", 4, 18, "unexpected number 1, expected an assignment ('=', '+=', ..., '++' or '--')" },
	{ "property p\nint n\nstate s {\n  before f() { n = 1 n = 2 } -> s\n}\n", 4, 22, "unexpected 'n', expected ';' after the statement" },
	{ "property p\nstate s {\n  before f() when (1 -> s\n}\n", 4, 1, "unexpected '}', expected ')' to close the '('" },
	{ "property p\nint x = 1 ? 2\nstate s\n", 3, 1, "unexpected 'state', expected ':' of the '?:'" },
	{ "property p\nint x = a->\n", 3, 1, "unexpected end of file, expected a field name after '->'" },
	{ "property p\nstate s\non enter t: stop\n", 3, 10, "unknown state 't' in 'on enter', expected a state of property p" },
	{ "property p\nstate s\non leave t: stop\n", 3, 10, "unknown state 't' in 'on leave', expected a state of property p" },
	{ "property p\nstate s\non enter s: dance\n", 3, 13, "unexpected 'dance', expected an action (log, stop, gdb, backtrace, checkpoint, restore, watch, unwatch, exec, kill)" },
	{ "property p\nstate s\non enter s stop\n", 3, 12, "unexpected 'stop', expected ':' after the state name" },
	{ "property p\nstate s\non arrive s: stop\n", 3, 4, "unexpected 'arrive', expected 'enter' or 'leave' after 'on'" },
	{ "property p\nstate s\non enter s: log stop\n", 3, 17, "unexpected 'stop', expected a format string after 'log'" },
	{ "property p\nstate s\non enter s: exec\n", 4, 1, "unexpected end of file, expected a command string after 'exec'" },
	{ "property p\nevent 3\nstate s\n", 2, 7, "unexpected number 3, expected an event name after 'event'" },
	{ "property p\nevent e(a b)\nstate s\n", 2, 11, "unexpected 'b', expected ',' or ')' after an event field" },
	/* names and types */
	{ "property p\nstate s\nstate s\n", 3, 7, "duplicate state 's' (first at line 2), expected a new name" },
	{ "property p\nint n\nint n\nstate s\n", 3, 5, "duplicate variable 'n' (first at line 2), expected a new name" },
	{ "property p\nint n\nglobal bool n\nstate s\n", 3, 13, "duplicate variable 'n' (first at line 2), expected a new name" },
	{ "property p\nslice on n\nint n\nstate s\n", 3, 5, "'n' is already a slice parameter (line 2), expected a new name" },
	{ "property p\nslice on a, ptr a\nstate s\n", 2, 17, "'a' is already a slice parameter (line 2), expected a new name" },
	{ "property p\nstate s\nproperty p\nstate s\n", 3, 1, "duplicate property 'p' (first at t.vigil:1), expected a new name" },
	{ "property p\nstate s violation {\n  before f() -> s\n}\n", 3, 3, "violation state 's' has a transition, expected no transitions (a violation is final)" },
	{ "property p\nstate s {\n  before f() when y > 0 -> s\n}\n", 3, 19, "unknown name 'y', expected an event parameter, slice parameter, variable, tid or time" },
	{ "property p\nstate s {\n  before f(x) when ret > 0 -> s\n}\n", 3, 20, "unknown name 'ret', expected an event parameter, slice parameter, variable, tid or time" },
	{ "property p\nstate s {\n  before f(x) when value > 0 -> s\n}\n", 3, 20, "unknown name 'value', expected an event parameter, slice parameter, variable, tid or time" },
	{ "property p\nint n\nstate s {\n  before f(x) { x = 1; } -> s\n}\n", 4, 17, "cannot assign to 'x', an event parameter, expected a variable" },
	{ "property p\nslice on q\nstate s {\n  before f(q) { q = 1; } -> s\n}\n", 4, 17, "cannot assign to 'q', a slice parameter, expected a variable" },
	{ "property p\nslice on q\nstate s {\n  before f() { q++; } -> s\n}\n", 4, 16, "cannot assign to 'q', a slice parameter, expected a variable" },
	{ "property p\nstate s {\n  before f() { tid = 1; } -> s\n}\n", 3, 16, "cannot assign to 'tid', the thread id, expected a variable" },
	{ "property p\nstate s {\n  before f() { n = 1 } -> s\n}\n", 3, 16, "unknown variable 'n', expected a variable of property p" },
	{ "property p\nstring s\nstate a {\n  before f() { s = 1; } -> a\n}\n", 4, 20, "cannot assign an int to string variable 's', expected a string" },
	{ "property p\nint n\nstate a {\n  before f() { n = \"x\"; } -> a\n}\n", 4, 20, "cannot assign a string to int variable 'n', expected a number or bool" },
	{ "property p\nstring s\nstate a {\n  before f() { s += \"x\"; } -> a\n}\n", 4, 18, "operator '+=' does not take a string, expected '=' for string variable 's'" },
	{ "property p\nstring s\nstate a {\n  before f() { s++; } -> a\n}\n", 4, 17, "operator '++' does not take a string, expected '=' for string variable 's'" },
	{ "property p\nint n\nstate a {\n  before f() { n *= \"x\"; } -> a\n}\n", 4, 21, "operator '*=' does not take a string, expected a number" },
	{ "property p\nstring s\nstate a {\n  before f() when s -> a\n}\n", 4, 19, "guard is a string, expected a condition" },
	{ "property p\nstring s\nint n\nstate a {\n  before f() when s == n -> a\n}\n", 5, 21, "cannot compare a string with an int, expected two strings" },
	{ "property p\nstring s\nstate a {\n  before f() when s < \"b\" -> a\n}\n", 4, 21, "operator '<' does not take a string, expected an integer or bool operand" },
	{ "property p\nstring s\nstate a {\n  before f() when -s -> a\n}\n", 4, 19, "operator '-' does not take a string, expected an integer or bool operand" },
	{ "property p\nstring s\nstate a {\n  before f() when s && 1 -> a\n}\n", 4, 21, "operator '&&' does not take a string, expected an integer or bool operand" },
	{ "property p\nstring s\nstate a {\n  before f() when (1 ? s : 2) == 0 -> a\n}\n", 4, 22, "'?:' mixes a string and an int, expected both branches of one kind" },
	{ "property p\nstate s {\n  thread_start when 1 == \"a\" || tid -> s\n}\n", 3, 23, "cannot compare a string with an int, expected two strings" },
	{ "property p\nstring s = 5\nstate a\n", 2, 12, "cannot initialize string variable 's' with an int, expected a string" },
	{ "property p\nbool b = \"x\"\nstate a\n", 2, 10, "cannot initialize bool variable 'b' with a string, expected a number or bool" },
	{ "property p\nint n = m\nstate a\n", 2, 9, "'m' is not a constant, expected a constant initializer (numbers, strings, true, false, null and operators)" },
	{ "property p\nint m, n = m + 1\nstate a\n", 2, 12, "'m' is not a constant, expected a constant initializer (numbers, strings, true, false, null and operators)" },
	{ "property p\nint n = tid\nstate a\n", 2, 9, "'tid' is not a constant, expected a constant initializer (numbers, strings, true, false, null and operators)" },
	{ "property p\nint n\nstate a {\n  before f(x) when *n == 0 -> a\n}\n", 4, 21, "'n' is not a parameter of this event, expected p->field or *p with p a parameter of the event" },
	{ "property p\nstate a {\n  before f(x) when x.y -> a\n}\n", 3, 20, "cannot read 'x.y', expected p->field, p->a.b, p->a->b or *p with p a parameter of the event" },
	{ "property p\nstate a {\n  exit(c) when c->x == 0 -> a\n}\n", 3, 16, "'c->x' reads target memory, which only function events (before/after) can do, and str(arg) of a syscall" },
	/* str() and ::globals */
	{ "property p\nstate a {\n  before f(p) when :: == 0 -> a\n}\n", 3, 23, "unexpected '==', expected a global variable's name after '::'" },
	{ "property p\nstate a {\n  before f(p) when str(p + 1) == \"x\" -> a\n}\n", 3, 24, "cannot read a string at 'p + 1', expected str(p), str(p->field) or str(p->a.b) with p a parameter of the event" },
	{ "property p\nstate a {\n  before f(p) when str(p) -> a\n}\n", 3, 24, "guard is a string, expected a condition" },
	{ "property p\nevent e(x)\nstate a {\n  e(x) when ::g == x -> a\n}\n", 4, 13, "'::g' reads the target's memory, which a declared trace event does not have" },
	{ "property p\nstate a {\n  before f(x) when x->a + x->b + x->c + x->d + x->e -> a\n}\n", 3, 48, "'x->e' is a 5th memory read for f, expected at most 4 per event" },
	{ "property p\nint n = *0\nstate a\n", 2, 9, "'*0' reads target memory, expected a constant initializer" },
	{ "property p\nint a\nstate s {\n  before f() when a + (a + (a + (a + (a + (a + (a + (a + (a + a)))))))) > 0 -> s\n}\n", 4, 59, "expression too deep, expected at most 8 values on the evaluation stack" },
	/* bindings */
	{ "property p\nslice on q\nstate s {\n  before f(q) -> s\n  before f(_, q) -> s\n}\n", 5, 15, "event f binds q at position 1 here but at position 0 at line 4, expected the same binding in every transition on it" },
	{ "property p\nslice on q\nstate s {\n  after f(q) -> s\n  after f() returns q -> s\n}\n", 5, 21, "event f binds q to the return value here but at position 0 at line 4, expected the same binding in every transition on it" },
	{ "property p\nslice on q\nstate s {\n  before f(q) -> s\n  before f() -> s\n}\n", 5, 10, "event f does not bind q here but binds it at position 0 at line 4, expected the same binding in every transition on it" },
	{ "property p\nslice on a, q\nstate s {\n  before f(x) -> s\n}\nstate t {\n  before f(x, q) -> t\n}\n", 7, 15, "event f binds q at position 1 here but does not bind it at line 4, expected the same binding in every transition on it" },
	{ "property p\nslice on c\nstate s {\n  exit(c) -> s\n  exit(_) -> s\n}\n", 5, 3, "event exit does not bind c here but binds it at position 0 at line 4, expected the same binding in every transition on it" },
	{ "property p\nstate s {\n  before f(a, a) -> s\n}\n", 3, 15, "'a' names two parameters of the event, expected distinct names or '_'" },
	{ "property p\nstate s {\n  after f(a) returns a -> s\n}\n", 3, 22, "'a' names two parameters of the event, expected distinct names or '_'" },
	{ "property p\nstate s {\n  foo(x) -> s\n}\n", 3, 3, "undeclared event 'foo', expected a declaration 'event foo(...)' in property p" },
	{ "property p\nevent foo(a)\nstate s {\n  foo(x, y) -> s\n}\n", 4, 10, "too many parameters for event foo, expected at most 1 as declared at line 2" },
	{ "property p\nevent foo(a)\nevent foo(b)\nstate s\n", 3, 7, "duplicate event 'foo' (first at line 2), expected a new name" },
	{ "property q\nevent foo(a)\nstate s\nproperty p\nstate s {\n  foo(x) -> s\n}\n", 6, 3, "undeclared event 'foo', expected a declaration 'event foo(...)' in property p" },
	/* tokens */
	{ "property p \"unterminated\nstate s\n", 1, 12, "unterminated string literal, expected \" before the end of the line" },
	{ "property p \"bad \\q escape\"\nstate s\n", 1, 17, "unknown escape '\\q', expected one of \\n \\t \\r \\\\ \\\" \\' \\xHH" },
	{ "property p \"bad \\xZ1\"\nstate s\n", 1, 17, "bad escape '\\x', expected two hex digits after it" },
	{ "property p \"nul \\x00\"\nstate s\n", 1, 17, "NUL character in a string, expected printable text" },
	{ "property p\nint x = 0777\nstate s\n", 2, 9, "octal numbers are not supported, expected a decimal or 0x number" },
	{ "property p\nint x = 99999999999999999999\nstate s\n", 2, 9, "number too large, expected at most 64 bits" },
	{ "property p\nint x = 0x1ffffffffffffffff\nstate s\n", 2, 9, "number too large, expected at most 64 bits" },
	{ "property p\nint x = 0x\nstate s\n", 2, 9, "bad number '0x', expected hex digits after 0x" },
	{ "property p\nint x = 12ab\nstate s\n", 2, 11, "unexpected 'a' in a number, expected a digit" },
	{ "property p\nint x = 1 ` 2\nstate s\n", 2, 11, "unexpected character '`'" },
	{ "property p\nint x = 1 \x01 2\nstate s\n", 2, 11, "unexpected character '\\x01'" },
	{ "property p\nint x = 'ab'\nstate s\n", 2, 11, "character literal too long, expected ' after one character" },
	{ "property p\nint x = ''\nstate s\n", 2, 9, "empty character literal, expected one character" },
	{ "property p\nint x = 'a\nstate s\n", 2, 9, "unterminated character literal, expected ' before the end of the line" },
	/* an earlier syntax error wins over a later lexical one */
	{ "property p\nstate s {\n  before f() -> \n}\nint x = \"\\q\"\n", 4, 1, "unexpected '}', expected a target state name after '->'" },
	/* watchpoints armed per slice */
	{ "property p\nslice on ptr q\nstate s {\n  write q->count -> s\n}\n", 4, 3, "'write q->count' in the initial state: a watchpoint on memory a slice points to is armed when the slice enters a state that consumes it, and no slice is in the initial state" },
	{ "property p\nslice on ptr q\nstate s { before f(q) -> t }\nstate t {\n  write r->x -> t\n}\n", 5, 9, "'r' is not a slice parameter or variable of p: a watchpoint on *p or p->field is armed per slice, at the address the slice's p gives" },
	{ "property p\nslice on ptr q\nstate s { before f(q) -> t }\nstate t {\n  write q -> t\n}\n", 5, 9, "'q' is a slice parameter of p, not target memory: expected *q or q->field" },
	{ "property p\nslice on ptr q\nstate s { before f(q) -> t }\nstate t {\n  write *q @ zz -> t\n}\n", 5, 14, "'zz' is not a slice parameter or variable of p, expected the number of elements to watch" },
	{ "property p\nstate s {\n  write g @ 4 -> s\n}\n", 3, 13, "'@' counts elements from a pointer, expected *p @ n or p->field @ n with p a slice parameter or variable" },
	{ "property p\nslice on ptr q\nstate s { before f(q) -> t }\nstate t\non enter t: watch q->next\n", 5, 13, "watch q->next: property p has no event on it, expected a transition on 'write q->next' (or read, access) for its hits" },
	/* columns count tabs as one */
	{ "property p\n\tstate s {\n\t\tbefore f(x) when\tx < y -> s\n\t}\n", 3, 24, "unknown name 'y', expected an event parameter, slice parameter, variable, tid or time" },
};

static void test_errors(void **state)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vg_spec *s = vg_spec_new();
		struct vg_err e = { 0 };
		char want[4096];

		expected_msg(want, sizeof(want), "t.vigil", bad[i].src,
			     bad[i].line, bad[i].col, bad[i].what);
		if (vg_spec_load_string(s, "t.vigil", bad[i].src, &e) != -1)
			fail_msg("case %zu loaded: %s", i, bad[i].src);
		if (strcmp(e.msg, want))
			fail_msg("case %zu:\n got: %s\nwant: %s", i, e.msg, want);
		assert_int_equal(e.exit_code, VG_EXIT_USAGE);
		assert_int_equal(s->nprops, 0);
		assert_int_equal(s->nevents, 0);
		vg_spec_free(s);
	}
}

/* The exact text of DESIGN.md's contract, once, without the helper. */
static void test_error_format(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	assert_int_equal(vg_spec_load_string(s, "specs/x.vigil",
					     "property p\nslice on q\nstate a {\n"
					     "    before queue_push(q -> ready\n}\n",
					     &e), -1);
	assert_string_equal(e.msg,
			    "specs/x.vigil:4:25: error: unexpected '->', expected ',' or ')' after a parameter\n"
			    "    before queue_push(q -> ready\n"
			    "                        ^\n");
	vg_spec_free(s);
}

static void test_deep_nesting(void **state)
{
	static char text[20000];
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	size_t n = 0;

	/* parentheses: bounded recursion in the parser */
	n += (size_t)sprintf(text, "property p\nint x = ");
	for (int i = 0; i < 5000; i++)
		text[n++] = '(';
	strcpy(text + n, "1\nstate s\n");
	assert_int_equal(vg_spec_load_string(s, "t.vigil", text, &e), -1);
	assert_non_null(strstr(e.msg, "t.vigil:2:209: error: expression nested too deeply, expected at most 200 levels"));
	/* a long left-leaning chain: bounded height of the tree */
	n = (size_t)sprintf(text, "property p\nint x = 1");
	for (int i = 0; i < 3000; i++)
		n += (size_t)sprintf(text + n, "+1");
	strcpy(text + n, "\nstate s\n");
	assert_int_equal(vg_spec_load_string(s, "t.vigil", text, &e), -1);
	assert_non_null(strstr(e.msg, "error: expression too complex, expected at most 200 nested operations"));
	/* unary chains */
	n = (size_t)sprintf(text, "property p\nint x = ");
	for (int i = 0; i < 3000; i++)
		text[n++] = '!';
	strcpy(text + n, "x\nstate s\n");
	assert_int_equal(vg_spec_load_string(s, "t.vigil", text, &e), -1);
	assert_non_null(strstr(e.msg, "nested too deeply"));
	/* a long line is shown as a window around the column */
	n = (size_t)sprintf(text, "property p\nint x = 1");
	for (int i = 0; i < 500; i++)
		n += (size_t)sprintf(text + n, "    ");
	strcpy(text + n, " `\nstate s\n");
	assert_int_equal(vg_spec_load_string(s, "t.vigil", text, &e), -1);
	assert_non_null(strstr(e.msg, "t.vigil:2:2011: error: unexpected character '`'\n..."));
	assert_non_null(strstr(e.msg, "   `\n   "));
	assert_non_null(strstr(e.msg, "^\n"));
	assert_true(strlen(e.msg) < 1000);
	vg_spec_free(s);
}

/* ---- all or nothing --------------------------------------------------- */

static void test_failed_load_changes_nothing(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	assert_int_equal(vg_spec_load_string(s, "a.vigil",
		"property a\nslice on p\nint n\n"
		"state s { before f(p) when p == 1 { n++; } -> s }\n", &e), 0);
	/* the failing spec first uses an existing event more widely, adds
	 * events and strings, then fails in its second property */
	assert_int_equal(vg_spec_load_string(s, "b.vigil",
		"property b\nstring t\n"
		"state s { before f(_, _, z) when t == \"fresh\" -> s\n"
		"          before g() -> s }\n"
		"property c\nstate s { before h() -> nowhere }\n", &e), -1);
	assert_non_null(strstr(e.msg, "b.vigil:6:25: error: unknown state 'nowhere'"));
	assert_int_equal(s->nprops, 1);
	assert_int_equal(s->nevents, 1);
	assert_int_equal(s->events[0].nfields, 1);
	assert_int_equal(vg_spec_intern(s, "fresh"), 1);	/* not kept */
	/* b was never added, so it can be loaded once fixed */
	assert_int_equal(vg_spec_load_string(s, "b.vigil",
		"property b\nstate s { before f(_, _, z) -> s }\n", &e), 0);
	assert_int_equal(s->nprops, 2);
	assert_int_equal(s->events[0].nfields, 3);
	/* and a second property of the same name is refused */
	assert_int_equal(vg_spec_load_string(s, "c.vigil", "property a\nstate x\n", &e), -1);
	assert_non_null(strstr(e.msg, "c.vigil:1:1: error: duplicate property 'a' (first at a.vigil:1)"));
	assert_int_equal(s->nprops, 2);
	vg_spec_free(s);
}

/* ---- includes --------------------------------------------------------- */

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup_dir(void **state)
{
	char path[128];

	strcpy(dir, "/tmp/vigil-spec-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/sub", dir);
	return mkdir(path, 0700);
}

static int teardown_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_include(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	char path[256];

	/* main includes sub/a and sub/b; both include common (relative to
	 * themselves): common is loaded once */
	put("main.vigil", "include \"sub/a.vigil\"\nproperty top\nstate s\ninclude \"sub/b.vigil\"\n");
	put("sub/a.vigil", "include \"common.vigil\"\nproperty a\nstate s { before f(x) -> s }\n");
	put("sub/b.vigil", "include \"./common.vigil\"\ninclude \"../sub/common.vigil\"\nproperty b\nstate s { before f(x, y) -> s }\n");
	put("sub/common.vigil", "property common\nstate s { before f() -> s }\n");
	snprintf(path, sizeof(path), "%s/main.vigil", dir);
	if (vg_spec_load_file(s, path, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(s->nprops, 4);
	assert_string_equal(s->props[0].name, "common");
	assert_string_equal(s->props[1].name, "a");
	assert_string_equal(s->props[2].name, "top");
	assert_string_equal(s->props[3].name, "b");
	assert_non_null(strstr(s->props[0].loc.file, "sub/common.vigil"));
	assert_non_null(strstr(s->props[2].loc.file, "main.vigil"));
	assert_int_equal(s->nevents, 1);
	assert_int_equal(s->events[0].nfields, 2);
	/* loading a file again (or one it included) does nothing */
	assert_int_equal(vg_spec_load_file(s, path, &e), 0);
	snprintf(path, sizeof(path), "%s/sub/a.vigil", dir);
	assert_int_equal(vg_spec_load_file(s, path, &e), 0);
	assert_int_equal(s->nprops, 4);
	vg_spec_free(s);
}

static void test_include_errors(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	char path[256], want[512];

	/* a cycle, reported where it closes */
	put("c1.vigil", "property one\nstate s\ninclude \"sub/c2.vigil\"\n");
	put("sub/c2.vigil", "# back\n  include \"../c1.vigil\"\n");
	snprintf(path, sizeof(path), "%s/c1.vigil", dir);
	assert_int_equal(vg_spec_load_file(s, path, &e), -1);
	snprintf(want, sizeof(want), "%s/sub/c2.vigil:2:11: error: include cycle: '../c1.vigil' is already being loaded, expected a file not among its own includes\n"
		 "  include \"../c1.vigil\"\n          ^\n", dir);
	assert_string_equal(e.msg, want);
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_int_equal(s->nprops, 0);

	/* a missing file, at the include */
	put("m.vigil", "include \"nothere.vigil\"\n");
	snprintf(path, sizeof(path), "%s/m.vigil", dir);
	assert_int_equal(vg_spec_load_file(s, path, &e), -1);
	snprintf(want, sizeof(want), "%s/m.vigil:1:9: error: cannot open '%s/nothere.vigil': No such file or directory\n", dir, dir);
	assert_int_equal(strncmp(e.msg, want, strlen(want)), 0);

	/* an error inside an included file names that file */
	put("sub/bad.vigil", "property x\nstate s {\n  before f( -> s\n}\n");
	put("i.vigil", "include \"sub/bad.vigil\"\n");
	snprintf(path, sizeof(path), "%s/i.vigil", dir);
	assert_int_equal(vg_spec_load_file(s, path, &e), -1);
	snprintf(want, sizeof(want), "%s/sub/bad.vigil:3:13: error: unexpected '->', expected a parameter name, '*name' or '_'\n", dir);
	assert_int_equal(strncmp(e.msg, want, strlen(want)), 0);

	/* after all that, the same files can load once fixed */
	put("sub/bad.vigil", "property x\nstate s {\n  before f() -> s\n}\n");
	assert_int_equal(vg_spec_load_file(s, path, &e), 0);
	assert_int_equal(s->nprops, 1);

	/* the top-level file itself missing */
	assert_int_equal(vg_spec_load_file(s, "/nonexistent/x.vigil", &e), -1);
	assert_string_equal(e.msg, "/nonexistent/x.vigil: error: cannot open: No such file or directory\n");
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_int_equal(s->nprops, 1);
	vg_spec_free(s);
}

/* ---- lint ------------------------------------------------------------- */

static char *lint_of(const char *text, int *n)
{
	static char out[4096];
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	FILE *f;

	out[0] = 0;
	f = fmemopen(out, sizeof(out), "w");
	if (vg_spec_load_string(s, "l.vigil", text, &e))
		fail_msg("%s", e.msg);
	*n = vg_spec_lint(s, f);
	fclose(f);
	vg_spec_free(s);
	return out;
}

static void test_lint(void **state)
{
	int n;
	char *out;

	out = lint_of("property p\nint a\n"
		      "state init {\n"
		      "  before f() -> mid\n"
		      "  before g() when 1 < 0 -> lost\n"
		      "}\n"
		      "state mid {\n"
		      "  before f() -> mid\n"
		      "  before f() when a > 0 -> init\n"
		      "  before g() when 2 > 1 && true -> mid\n"
		      "  before g() -> init\n"
		      "  before h() when a -> init\n"
		      "  before h() -> mid\n"
		      "}\n"
		      "state lost\n"
		      "state island { before f() -> island  before g() -> other }\n"
		      "state other\n", &n);
	assert_string_equal(out,
		"l.vigil:15:7: warning: state 'lost' in property p is not reachable from the initial state 'init'\n"
		"l.vigil:16:7: warning: unused state 'island' in property p: no transition enters it\n"
		"l.vigil:17:7: warning: state 'other' in property p is not reachable from the initial state 'init'\n"
		"l.vigil:5:3: warning: transition on before g can never fire: its guard is always false\n"
		"l.vigil:9:3: warning: transition on before f can never fire: the transition at line 8 on the same event in state 'mid' has no guard and comes first\n"
		"l.vigil:11:3: warning: transition on before g can never fire: the transition at line 10 on the same event in state 'mid' has a guard that always holds\n");
	assert_int_equal(n, 6);

	/* the examples are clean */
	out = lint_of("property p\nslice on q\n"
		      "state a { before f(q) when q > 0 -> b\n before f(q) -> a\n exit(c) -> b }\n"
		      "state b violation\n", &n);
	assert_int_equal(n, 0);
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_format),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_failed_load_changes_nothing),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_include_errors),
		cmocka_unit_test(test_lint),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
