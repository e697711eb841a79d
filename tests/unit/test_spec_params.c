/* Spec parameters: `param NAME = VALUE`, `$NAME`, and -D NAME=VALUE
 * (vg_spec_define): what they substitute, and the errors, each with its
 * file:line:col. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec/spec.h"

static const char double_free[] =
	"param alloc = malloc\n"
	"param release = free\n"
	"property double_free\n"
	"slice on ptr p\n"
	"state init { after $alloc(size) returns p when p != 0 -> live }\n"
	"state live { before $release(p) -> freed }\n"
	"state freed {\n"
	"  after $alloc(size) returns p -> live\n"
	"  before $release(p) -> bad\n"
	"}\n"
	"state bad violation\n";

/* Load text after the defines "NAME=VALUE", ...; returns the load's
 * status, e filled. */
static int load_with(struct vg_spec *s, const char *text, struct vg_err *e,
		     const char *const *defs)
{
	for (; defs && *defs; defs++) {
		char name[64];
		const char *eq = strchr(*defs, '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - *defs), *defs);
		if (vg_spec_define(s, name, eq + 1, e))
			return -1;
	}
	return vg_spec_load_string(s, "t.vigil", text, e);
}

static void test_defaults(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	if (load_with(s, double_free, &e, NULL))
		fail_msg("%s", e.msg);
	assert_int_equal(s->nevents, 2);
	assert_int_not_equal(vg_spec_find_event(s, VG_EV_AFTER, "malloc"), -1);
	assert_int_not_equal(vg_spec_find_event(s, VG_EV_BEFORE, "free"), -1);
	/* nothing was defined: nothing to complain about */
	assert_int_equal(vg_spec_check_defines(s, &e), 0);
	vg_spec_free(s);
}

/* The allocator's events are known by the parameter that names their
 * function: `$alloc` at an `after`, `$release` at a `before`, whatever
 * -D makes of it; a literal malloc, or another parameter, is not one. A
 * `$alloc` line whose default is a line of the state already is that
 * line: no second transition for lint to call dead. */
static const char pool[] =
	"param alloc = malloc\n"
	"param release = free\n"
	"param other = my_other\n"
	"property p\n"
	"state ok accepting {\n"
	"  after malloc(size) returns p -> ok\n"
	"  before free(p) -> ok\n"
	"  after $alloc(size) returns p -> ok\n"
	"  before $release(p) -> ok\n"
	"  after $other(size) returns p -> ok\n"
	"  before $alloc(size) -> ok\n"
	"}\n";

static void test_heap_role(void **state)
{
	static const char *const defs[] = { "alloc=my_alloc",
					    "release=my_free", NULL };
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	int ev;

	(void)state;
	if (load_with(s, pool, &e, NULL))
		fail_msg("%s", e.msg);
	/* the defaults fold into malloc's and free's lines */
	assert_int_equal(s->props[0].ntrans, 4);
	ev = vg_spec_find_event(s, VG_EV_AFTER, "malloc");
	assert_int_equal(s->events[ev].heap_role, VG_HEAP_ALLOC);
	ev = vg_spec_find_event(s, VG_EV_AFTER, "my_other");
	assert_int_equal(s->events[ev].heap_role, VG_HEAP_NONE);
	ev = vg_spec_find_event(s, VG_EV_BEFORE, "malloc");
	assert_int_equal(s->events[ev].heap_role, VG_HEAP_NONE);
	vg_spec_free(s);

	s = vg_spec_new();
	if (load_with(s, pool, &e, defs))
		fail_msg("%s", e.msg);
	assert_int_equal(s->props[0].ntrans, 6);
	ev = vg_spec_find_event(s, VG_EV_AFTER, "my_alloc");
	assert_int_not_equal(ev, -1);
	assert_int_equal(s->events[ev].heap_role, VG_HEAP_ALLOC);
	ev = vg_spec_find_event(s, VG_EV_BEFORE, "my_free");
	assert_int_equal(s->events[ev].heap_role, VG_HEAP_RELEASE);
	ev = vg_spec_find_event(s, VG_EV_AFTER, "malloc");
	assert_int_equal(s->events[ev].heap_role, VG_HEAP_NONE);
	ev = vg_spec_find_event(s, VG_EV_BEFORE, "my_alloc");
	assert_int_equal(s->events[ev].heap_role, VG_HEAP_NONE);
	vg_spec_free(s);
}

static void test_defines_replace(void **state)
{
	static const char *const defs[] = { "alloc=pool_get",
					    "release=nothing",
					    "release=pool_put", NULL };
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	if (load_with(s, double_free, &e, defs))
		fail_msg("%s", e.msg);
	assert_int_equal(s->nevents, 2);
	assert_int_not_equal(vg_spec_find_event(s, VG_EV_AFTER, "pool_get"), -1);
	/* the last -D of a name wins */
	assert_int_not_equal(vg_spec_find_event(s, VG_EV_BEFORE, "pool_put"), -1);
	assert_int_equal(vg_spec_find_event(s, VG_EV_AFTER, "malloc"), -1);
	assert_int_equal(vg_spec_check_defines(s, &e), 0);
	vg_spec_free(s);
}

/* A number and a string, and a parameter anywhere a token of its kind
 * goes: an initializer, a guard, a state name, a declared event. */
static void test_kinds(void **state)
{
	static const char text[] =
		"param max = 8\n"
		"param who = \"root\"\n"
		"param ev = push\n"
		"param bad = overflow\n"
		"param first = $max\n"	/* a default may be a parameter */
		"property q\n"
		"int n = $first, cap = $max\n"
		"event $ev(x)\n"
		"state ok { $ev(x) when n < $max && \"root\" == $who { n++; } -> ok\n"
		"           $ev(x) -> $bad }\n"
		"state $bad violation\n";
	static const char *const defs[] = { "max=0x10", "who=admin", NULL };
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	if (load_with(s, text, &e, NULL))
		fail_msg("%s", e.msg);
	assert_int_equal(s->props[0].vars[0].init, 8);
	assert_int_equal(s->props[0].vars[1].init, 8);
	assert_string_equal(s->props[0].states[1].name, "overflow");
	assert_int_not_equal(vg_spec_find_event(s, VG_EV_NAMED, "push"), -1);
	vg_spec_free(s);

	s = vg_spec_new();
	if (load_with(s, text, &e, defs))
		fail_msg("%s", e.msg);
	/* `first` takes max's value as it is when `first` is declared */
	assert_int_equal(s->props[0].vars[0].init, 16);
	assert_int_equal(s->props[0].vars[1].init, 16);
	assert_int_equal(vg_spec_check_defines(s, &e), 0);
	vg_spec_free(s);
}

/* The error a load must give: file:line:col, then the message. */
static void expect_error(const char *text, const char *const *defs,
			 const char *where_what)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	if (load_with(s, text, &e, defs) != -1)
		fail_msg("loaded: %s", text);
	if (strncmp(e.msg, where_what, strlen(where_what)))
		fail_msg("\n got: %s\nwant: %s", e.msg, where_what);
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_int_equal(s->nprops, 0);
	vg_spec_free(s);
}

static void test_errors(void **state)
{
	static const char *const one_x[] = { "alloc=1x", NULL };
	static const char *const not_num[] = { "max=eight", NULL };
	static const char *const octal[] = { "max=0755", NULL };
	static const char *const huge[] = { "max=99999999999999999999", NULL };

	expect_error("property p\nstate s { before $nope(x) -> s }\n", NULL,
		     "t.vigil:2:18: error: unknown parameter '$nope', expected one declared above with 'param nope = ...'");
	/* declared below its use: not known yet */
	expect_error("property p\nstate s { before $f(x) -> s }\nparam f = g\n",
		     NULL, "t.vigil:2:18: error: unknown parameter '$f'");
	expect_error("param a = x\nparam a = y\n", NULL,
		     "t.vigil:2:7: error: parameter 'a' is already declared at line 1, expected each name once per file");
	expect_error("param a\nproperty p\nstate s\n", NULL,
		     "t.vigil:2:1: error: unexpected 'property', expected '=' and the parameter's default value");
	expect_error("param a = (\n", NULL,
		     "t.vigil:1:11: error: unexpected '(', expected a name, a number or a string as the parameter's default value");
	expect_error("param = x\n", NULL,
		     "t.vigil:1:7: error: unexpected '=', expected a parameter name after 'param'");
	expect_error("param a = $\n", NULL,
		     "t.vigil:1:11: error: expected a parameter name after '$'");
	/* a -D value of the wrong kind: at the declaration */
	expect_error(double_free, one_x,
		     "t.vigil:1:7: error: -D alloc=1x: expected a name, as the default malloc is");
	expect_error("param max = 8\n", not_num,
		     "t.vigil:1:7: error: -D max=eight: expected a number, as the default 8 is");
	expect_error("param max = 8\n", octal,
		     "t.vigil:1:7: error: -D max=0755: expected a number");
	expect_error("param max = 8\n", huge,
		     "t.vigil:1:7: error: -D max=99999999999999999999: expected a number");
	/* a parameter becomes a token of its kind: a number is no name */
	expect_error("param f = 3\nproperty p\nstate s { before $f(x) -> s }\n",
		     NULL, "t.vigil:3:18: error: unexpected number $f, expected a function name");
}

static void test_check_defines(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	assert_int_equal(vg_spec_define(s, "alloc", "my_alloc", &e), 0);
	assert_int_equal(vg_spec_define(s, "alocc", "x", &e), 0);
	if (vg_spec_load_string(s, "t.vigil", double_free, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(vg_spec_check_defines(s, &e), -1);
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_string_equal(e.msg, "-D alocc: no spec file declares 'param alocc' (they declare: alloc, release)");
	vg_spec_free(s);

	/* none declared at all */
	s = vg_spec_new();
	assert_int_equal(vg_spec_define(s, "alloc", "x", &e), 0);
	assert_int_equal(vg_spec_load_string(s, "t.vigil", "property p\nstate s\n", &e), 0);
	assert_int_equal(vg_spec_check_defines(s, &e), -1);
	assert_string_equal(e.msg, "-D alloc: no spec file declares 'param alloc' (they declare no parameter)");
	/* a name that cannot be one */
	assert_int_equal(vg_spec_define(s, "1a", "x", &e), -1);
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_non_null(strstr(e.msg, "'1a' is not a parameter name"));
	vg_spec_free(s);

	/* a load that fails uses nothing */
	s = vg_spec_new();
	assert_int_equal(vg_spec_define(s, "alloc", "x", &e), 0);
	assert_int_equal(vg_spec_load_string(s, "t.vigil", "param alloc = a\nproperty p\n", &e), -1);
	assert_int_equal(vg_spec_check_defines(s, &e), -1);
	assert_non_null(strstr(e.msg, "-D alloc: no spec file declares"));
	vg_spec_free(s);
}

/* Each file has its parameters; a -D reaches every file that declares
 * the name. */
static void test_scope(void **state)
{
	char dir[] = "/tmp/vigil-params-XXXXXX", path[128], cmd[160];
	struct vg_spec *s;
	struct vg_err e = { 0 };
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lib.vigil", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("param fn = lib_default\nproperty lib\nstate s { before $fn(x) -> s }\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/main.vigil", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("param fn = main_default\ninclude \"lib.vigil\"\nproperty main\nstate s { before $fn(x) -> s }\n", f);
	fclose(f);

	s = vg_spec_new();
	if (vg_spec_load_file(s, path, &e))
		fail_msg("%s", e.msg);
	assert_int_not_equal(vg_spec_find_event(s, VG_EV_BEFORE, "lib_default"), -1);
	assert_int_not_equal(vg_spec_find_event(s, VG_EV_BEFORE, "main_default"), -1);
	vg_spec_free(s);

	s = vg_spec_new();
	assert_int_equal(vg_spec_define(s, "fn", "both", &e), 0);
	if (vg_spec_load_file(s, path, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(s->nevents, 1);
	assert_int_not_equal(vg_spec_find_event(s, VG_EV_BEFORE, "both"), -1);
	assert_int_equal(vg_spec_check_defines(s, &e), 0);
	vg_spec_free(s);

	/* the includer's parameter is not the included file's */
	snprintf(path, sizeof(path), "%s/lib.vigil", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("property lib\nstate s { before $fn(x) -> s }\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/main.vigil", dir);
	s = vg_spec_new();
	assert_int_equal(vg_spec_load_file(s, path, &e), -1);
	assert_non_null(strstr(e.msg, "lib.vigil:2:18: error: unknown parameter '$fn'"));
	vg_spec_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_defines_replace),
		cmocka_unit_test(test_heap_role),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_check_defines),
		cmocka_unit_test(test_scope),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
