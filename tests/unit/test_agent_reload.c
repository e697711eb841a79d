/* What the agent's reload sees per spec (user/agent/reload.c): each spec's
 * properties, the defines it declares, and three hashes (its files with
 * the included ones, its defines, its reactions) that change alone when
 * only that part changes; an unreadable spec, and a checkpoint reaction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/config.h"
#include "agent/reload.h"
#include "tmpdir.h"

static int setup(void **state)
{
	(void)state;
	if (tmpdir_make("agentreload"))
		return -1;
	put("inc.vigil", "property inc \"\"\nstate s accepting\n");
	put("a.vigil", "include \"inc.vigil\"\nproperty a \"\"\nstate s accepting\n");
	put("b.vigil", "param fn = f\nproperty b \"\"\n"
		       "state s accepting { before $fn() -> s }\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove();
}

/* the unit file's lines after its pidfile and specs a, b */
static void unit(struct vg_agent_unit *u, struct vg_agent_specs *sp,
		 const char *more)
{
	struct vg_err e = { 0 };
	char text[2048];

	snprintf(text, sizeof(text), "pidfile = /run/x.pid\nspec = a.vigil\n"
		 "spec = b.vigil\n%s", more);
	put("u.conf", text);
	assert_int_equal(vg_agent_unit_load(P("u.conf"), u, &e), 0);
	vg_agent_specs_read(u, sp);
	assert_int_equal(sp->n, 2);
}

static void done(struct vg_agent_unit *u, struct vg_agent_specs *sp)
{
	vg_agent_specs_free(sp);
	vg_agent_unit_free(u);
}

static void test_props_and_defines(void **state)
{
	struct vg_agent_unit u;
	struct vg_agent_specs sp;

	(void)state;
	unit(&u, &sp, "define = fn=g\nreaction.b = stop\n");
	/* a.vigil has its own property and the included one */
	assert_int_equal(sp.s[0].nprops, 2);
	assert_string_equal(sp.s[0].props[0], "inc");
	assert_string_equal(sp.s[0].props[1], "a");
	assert_string_equal(sp.s[0].reacts[1], "a=log");
	assert_int_equal(sp.s[0].ndefs, 0);	/* it declares no fn */
	assert_int_equal(sp.s[1].nprops, 1);
	assert_string_equal(sp.s[1].reacts[0], "b=stop");
	assert_int_equal(sp.s[1].ndefs, 1);
	assert_string_equal(sp.s[1].defs[0], "fn=g");
	assert_false(sp.s[1].checkpoint);
	done(&u, &sp);
}

/* each change moves its own hash, of its own spec only */
static void test_hashes(void **state)
{
	struct vg_agent_unit u0, u1;
	struct vg_agent_specs s0, s1;

	(void)state;
	unit(&u0, &s0, "define = fn=g\n");
	/* a define b declares: b's defines, nothing of a */
	unit(&u1, &s1, "define = fn=h\n");
	assert_int_equal(s0.s[0].defines, s1.s[0].defines);
	assert_int_equal(s0.s[0].files, s1.s[0].files);
	assert_int_not_equal(s0.s[1].defines, s1.s[1].defines);
	assert_int_equal(s0.s[1].files, s1.s[1].files);
	assert_int_equal(s0.s[1].reactions, s1.s[1].reactions);
	done(&u1, &s1);
	/* a reaction of b's property: b's reactions alone */
	unit(&u1, &s1, "define = fn=g\nreaction.b = kill\n");
	assert_int_equal(s0.s[0].reactions, s1.s[0].reactions);
	assert_int_not_equal(s0.s[1].reactions, s1.s[1].reactions);
	assert_int_equal(s0.s[1].defines, s1.s[1].defines);
	done(&u1, &s1);
	/* the unit's reaction: every property without its own */
	unit(&u1, &s1, "define = fn=g\nreaction = stop\n");
	assert_int_not_equal(s0.s[0].reactions, s1.s[0].reactions);
	assert_int_not_equal(s0.s[1].reactions, s1.s[1].reactions);
	done(&u1, &s1);
	/* the file a.vigil includes: a's files, not b's */
	put("inc.vigil", "property inc \"changed\"\nstate s accepting\n");
	unit(&u1, &s1, "define = fn=g\n");
	assert_int_not_equal(s0.s[0].files, s1.s[0].files);
	assert_int_equal(s0.s[1].files, s1.s[1].files);
	done(&u1, &s1);
	done(&u0, &s0);
}

static void test_unreadable_and_checkpoint(void **state)
{
	struct vg_agent_unit u;
	struct vg_agent_specs sp;

	(void)state;
	put("b.vigil", "property b \"\"\nstate s accepting {\n");
	unit(&u, &sp, "reaction = checkpoint\n");
	assert_int_equal(sp.s[1].nprops, -1);	/* a syntax error */
	assert_int_equal(sp.s[0].nprops, 2);
	assert_true(sp.s[0].checkpoint);
	done(&u, &sp);
	put("b.vigil", "param fn = f\nproperty b \"\"\n"
		       "state s accepting { before $fn() -> s }\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_props_and_defines),
		cmocka_unit_test(test_hashes),
		cmocka_unit_test(test_unreadable_and_checkpoint),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
