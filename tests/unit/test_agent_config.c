/* The agent's configuration files (user/agent/config.c): the format,
 * relative spec paths, defaults, FILE:LINE errors, and the fingerprint a
 * reload compares (the file's and its specs' bytes). */
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
#include "tmpdir.h"

static int setup(void **state)
{
	if (tmpdir_make("agentconf"))
		return -1;
	put("a.vigil", "property p \"\"\nstate s accepting\n");
	return 0;
}

static int teardown(void **state)
{
	return tmpdir_remove();
}

/* loads name, expecting failure with msg as a substring of the error */
static void expect_error(const char *name, const char *text, const char *msg)
{
	struct vg_agent_unit u;
	struct vg_err e = { 0 };

	put(name, text);
	assert_int_equal(vg_agent_unit_load(P(name), &u, &e), -1);
	assert_int_equal(e.exit_code, 2);
	if (!strstr(e.msg, msg))
		fail_msg("error '%s' does not say '%s'", e.msg, msg);
	unlink(P(name));
}

/* loads name, a unit that must load */
static void load_unit(const char *name, const char *text,
		      struct vg_agent_unit *u)
{
	struct vg_err e = { 0 };

	put(name, text);
	assert_int_equal(vg_agent_unit_load(P(name), u, &e), 0);
}

static void test_unit_and_defaults(void **state)
{
	struct vg_agent_unit u;
	char want[4300];

	load_unit("queued.conf", "# the queue service\n\n  exe = /usr/sbin/queued  \n"
		  "spec = a.vigil\ndefine = max=8\ndefine=alloc=my_alloc\n"
		  "reaction.p = stop\n", &u);
	assert_string_equal(u.name, "queued");
	assert_string_equal(u.exe, "/usr/sbin/queued");
	assert_string_equal(u.pidfile, "");
	assert_int_equal(u.nspecs, 1);
	snprintf(want, sizeof(want), "%s/a.vigil", dir);
	assert_string_equal(u.specs[0], want);
	assert_int_equal(u.ndefines, 2);
	assert_string_equal(u.defines[0], "max=8");
	assert_string_equal(u.defines[1], "alloc=my_alloc");
	/* production: a violation is recorded, the service runs on */
	assert_string_equal(u.reaction, "log");
	assert_string_equal(u.tier, "auto");
	assert_false(u.same_build);
	assert_int_equal(u.nprop_reactions, 1);
	assert_string_equal(u.prop_reactions[0], "p=stop");
	vg_agent_unit_free(&u);
	unlink(P("queued.conf"));
}

static void test_fingerprint_follows_file_and_specs(void **state)
{
	struct vg_agent_unit u;
	struct vg_err e = { 0 };
	uint64_t f1, f2, f3, f4;

	load_unit("x.conf", "pidfile = /run/x.pid\nspec = a.vigil\n", &u);
	f1 = u.fingerprint;
	vg_agent_unit_free(&u);
	assert_int_equal(vg_agent_unit_load(P("x.conf"), &u, &e), 0);
	f2 = u.fingerprint;
	vg_agent_unit_free(&u);
	assert_true(f1 == f2);
	put("a.vigil", "property p \"changed\"\nstate s accepting\n");
	assert_int_equal(vg_agent_unit_load(P("x.conf"), &u, &e), 0);
	f3 = u.fingerprint;
	vg_agent_unit_free(&u);
	assert_true(f3 != f2);
	load_unit("x.conf", "pidfile = /run/x.pid\nspec = a.vigil\nreaction = kill\n", &u);
	f4 = u.fingerprint;
	assert_string_equal(u.reaction, "kill");
	vg_agent_unit_free(&u);
	assert_true(f4 != f3);
	unlink(P("x.conf"));
}

static void test_errors_name_file_and_line(void **state)
{
	char want[4300];

	snprintf(want, sizeof(want), "%s/e.conf:3: unknown key 'reactoin'", dir);
	expect_error("e.conf", "exe = /bin/x\nspec = a.vigil\nreactoin = log\n", want);
	snprintf(want, sizeof(want), "%s/e.conf:2: expected 'key = value', found 'spec a.vigil'", dir);
	expect_error("e.conf", "exe = /bin/x\nspec a.vigil\n", want);
	expect_error("e.conf", "exe = /bin/x\nspec = a.vigil\nreaction = gdb\n",
		     "e.conf:3: reaction: 'gdb' is not log, stop, kill or checkpoint");
	expect_error("e.conf", "exe = bin/x\n", "e.conf:1: exe: 'bin/x' is not an absolute path");
	expect_error("e.conf", "exe = /bin/x\npidfile = /run/x.pid\n",
		     "e.conf:2: pidfile: the file already names its processes");
	expect_error("e.conf", "exe = /bin/x\nspec = missing.vigil\n",
		     "e.conf:2: spec: cannot read");
	expect_error("e.conf", "exe = /bin/x\ndefine = novalue\n",
		     "e.conf:2: define: 'novalue' is not NAME=VALUE");
	expect_error("e.conf", "spec = a.vigil\n", "names no processes");
	expect_error("e.conf", "exe = /bin/x\ncheckpoint-dir = ck\n",
		     "e.conf:2: checkpoint-dir: 'ck' is not an absolute path");
	expect_error("e.conf", "exe = /bin/x\nreaction.p = gdb\n",
		     "e.conf:2: reaction.p: 'gdb' is not log, stop, kill or checkpoint");
	expect_error("e.conf", "exe = /bin/x\nreaction. = stop\n",
		     "e.conf:2: reaction.: no property name");
	expect_error("e.conf", "exe = /bin/x\n", "no 'spec = FILE' line");
	expect_error("e.conf", "exe = /bin/x\ntier =\n", "e.conf:2: tier: no value after '='");
	expect_error("e.conf", "exe = /bin/x\nsame-build = maybe\n",
		     "e.conf:2: same-build: 'maybe' is not yes or no");
	expect_error("e.conf", "pidfile = /run/x.pid\nspec = a.vigil\nsame-build = yes\n",
		     "same-build is for 'exe = PATH' units");
}

/* vigil watch takes checkpoints per process: an exe unit may ask for them,
 * in either order of its lines */
static void test_checkpoint_for_exe(void **state)
{
	struct vg_agent_unit u;

	load_unit("c.conf", "reaction = checkpoint\nreaction.p = checkpoint\n"
		  "checkpoint-dir = /var/lib/vigil/ck\nexe = /bin/x\n"
		  "spec = a.vigil\n", &u);
	assert_string_equal(u.exe, "/bin/x");
	assert_string_equal(u.reaction, "checkpoint");
	assert_string_equal(u.checkpoint_dir, "/var/lib/vigil/ck");
	assert_int_equal(u.nprop_reactions, 1);
	assert_string_equal(u.prop_reactions[0], "p=checkpoint");
	vg_agent_unit_free(&u);
	unlink(P("c.conf"));
}

/* same-build = yes: the session is `vigil watch --exe PATH --same-build` */
static void test_same_build(void **state)
{
	struct vg_agent_unit u;

	load_unit("s.conf", "exe = /bin/x\nsame-build = yes\nspec = a.vigil\n", &u);
	assert_true(u.same_build);
	vg_agent_unit_free(&u);
	unlink(P("s.conf"));
}

static void test_bounded_lines(void **state)
{
	char *big = malloc(10000);

	memset(big, 'a', 9999);
	big[9999] = 0;
	expect_error("e.conf", big, "e.conf:1: line longer than 4096 bytes");
	expect_error("e.conf", "exe = /bin/x\n\x01\x02\n", "e.conf:2: not a text line");
	free(big);
}

static void test_directory_in_name_order(void **state)
{
	struct vg_agent_conf c;
	struct vg_err e = { 0 };

	put("b.conf", "pidfile = /run/b.pid\nspec = a.vigil\n");
	put("a.conf", "exe = /bin/a\nspec = a.vigil\n");
	put("notes.txt", "not a unit\n");
	assert_int_equal(vg_agent_conf_load(dir, &c, &e), 0);
	assert_int_equal(c.nunits, 2);
	assert_string_equal(c.units[0].name, "a");
	assert_string_equal(c.units[1].name, "b");
	vg_agent_conf_free(&c);
	put("c.conf", "exe = /bin/c\nspec = a.vigil\nfoo = 1\n");
	assert_int_equal(vg_agent_conf_load(dir, &c, &e), -1);
	assert_non_null(strstr(e.msg, "c.conf:3: unknown key 'foo'"));
	assert_int_equal(c.nunits, 0);
	unlink(P("a.conf"));
	unlink(P("b.conf"));
	unlink(P("c.conf"));
	assert_int_equal(vg_agent_conf_load("/nonexistent-vigil-dir", &c, &e), -1);
	assert_non_null(strstr(e.msg, "--config /nonexistent-vigil-dir: No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_and_defaults),
		cmocka_unit_test(test_fingerprint_follows_file_and_specs),
		cmocka_unit_test(test_errors_name_file_and_line),
		cmocka_unit_test(test_checkpoint_for_exe),
		cmocka_unit_test(test_same_build),
		cmocka_unit_test(test_bounded_lines),
		cmocka_unit_test(test_directory_in_name_order),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
