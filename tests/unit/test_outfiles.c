/* A checkpoint's output files (user/ckpt/outfiles.c): which files are
 * noted (open for writing, regular), and the descriptors a restore hands
 * CRIU: opened again at the file's end, or the very descriptor of the
 * process being replaced (here this process itself). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/ckpt.h"
#include "tmpdir.h"

static int setup(void **state)
{
	return tmpdir_make("outfiles");
}

static int teardown(void **state)
{
	return tmpdir_remove();
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = 0;
	if (f)
		fclose(f);
}

static const struct vg_outfiles *find(const struct vg_outfiles *of,
				      const char *path, int *at)
{
	for (int i = 0; i < of->n; i++)
		if (!strcmp(strchr(of->arg[i], ':') + 1, path + 1)) {
			*at = i;
			return of;
		}
	return NULL;
}

static void test_noted_and_handed_over(void **state)
{
	char log[PATH_MAX], data[PATH_MAX], in[PATH_MAX], text[8192], want[PATH_MAX + 32];
	struct vg_outfiles of;
	struct vg_err e = { 0 };
	int wfd, rwfd, rfd, i = -1, fd, n;

	snprintf(log, sizeof(log), "%s", P("log"));
	snprintf(data, sizeof(data), "%s", P("data"));
	snprintf(in, sizeof(in), "%s", P("in"));
	wfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rwfd = open(data, O_RDWR | O_CREAT, 0600);
	assert_int_equal(sh("echo input >'%s'", in), 0);
	rfd = open(in, O_RDONLY);
	assert_true(wfd >= 0 && rwfd >= 0 && rfd >= 0);
	assert_int_equal(write(wfd, "before\n", 7), 7);

	assert_int_equal(vg_outfiles_save(getpid(), dir, NULL, &e), 0);
	slurp(P("outfiles"), text, sizeof(text));
	{	/* "FD FLAGS PATH", the flags in octal as /proc says them */
		unsigned flags = 0;
		int nfd = -1;
		char *line;

		snprintf(want, sizeof(want), " %s\n", log);
		assert_non_null(line = strstr(text, want));
		while (line > text && line[-1] != '\n')
			line--;
		assert_int_equal(sscanf(line, "%d %o", &nfd, &flags), 2);
		assert_int_equal(nfd, wfd);
		assert_int_equal(flags & O_ACCMODE, O_WRONLY);
	}
	assert_non_null(strstr(text, data));
	assert_null(strstr(text, in));		/* only read: not noted */

	/* the log grows after the checkpoint */
	assert_int_equal(write(wfd, "after\n", 6), 6);

	/* vigil restore DIR: opened again, at the end, close-on-exec, away
	 * from 0-2 */
	/* (the test may have inherited files of its own: only ours count) */
	assert_int_equal(vg_outfiles_open(dir, 0, &of, &e), 0);
	assert_non_null(find(&of, data, &i));
	assert_null(find(&of, in, &i));
	n = of.n;
	assert_non_null(find(&of, log, &i));
	fd = of.fd[i];
	assert_true(fd >= 3 && fd != wfd);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 13);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	snprintf(want, sizeof(want), "fd[%d]:%s", fd, log + 1);
	assert_string_equal(of.arg[i], want);
	vg_outfiles_close(&of);
	assert_int_equal(of.n, 0);

	/* inside the session: the replaced process's own descriptor, its
	 * offset shared */
	assert_int_equal(vg_outfiles_open(dir, getpid(), &of, &e), 0);
	assert_non_null(find(&of, log, &i));
	assert_int_equal(write(of.fd[i], "x", 1), 1);
	assert_int_equal(lseek(wfd, 0, SEEK_CUR), 14);
	vg_outfiles_close(&of);

	/* a file gone is left to CRIU (which says which) */
	close(rwfd);
	unlink(data);
	assert_int_equal(vg_outfiles_open(dir, 0, &of, &e), 0);
	assert_int_equal(of.n, n - 1);
	assert_null(find(&of, data, &i));
	vg_outfiles_close(&of);
	close(wfd);
	close(rfd);
}

static void test_image_without_the_file(void **state)
{
	struct vg_outfiles of;
	struct vg_err e = { 0 };

	unlink(P("outfiles"));
	assert_int_equal(vg_outfiles_open(dir, 0, &of, &e), 0);
	assert_int_equal(of.n, 0);
}

/* A terminal the process has open (a pty's slave here): noted by its
 * CRIU id, for the dump's --external, and handed back at the restore as
 * the same device opened again, for --inherit-fd fd[N]:tty[RDEV:DEV]; not
 * noted when the dump does not take terminals (a shell job's). */
static void test_terminal(void **state)
{
	char id[VG_TTY_ID_MAX], text[8192], want[128];
	struct vg_outfiles_ttys ttys;
	struct vg_outfiles of;
	struct vg_err e = { 0 };
	struct stat st, got;
	int master, slave, i = -1;
	bool listed = false;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	assert_true(slave >= 0);
	assert_int_equal(fstat(slave, &st), 0);
	snprintf(id, sizeof(id), "tty[%llx:%llx]", (unsigned long long)st.st_rdev,
		 (unsigned long long)st.st_dev);

	assert_int_equal(vg_outfiles_save(getpid(), dir, NULL, &e), 0);
	slurp(P("outfiles"), text, sizeof(text));
	assert_null(strstr(text, id));
	assert_int_equal(vg_outfiles_save(getpid(), dir, &ttys, &e), 0);
	/* (the test may run on a terminal of its own: only ours counts) */
	for (int k = 0; k < ttys.n; k++)
		listed |= !strcmp(ttys.id[k], id);
	assert_true(listed);
	slurp(P("outfiles"), text, sizeof(text));
	snprintf(want, sizeof(want), "%d %s %s\n", slave, id, ptsname(master));
	assert_non_null(strstr(text, want));

	assert_int_equal(vg_outfiles_open(dir, 0, &of, &e), 0);
	for (int k = 0; k < of.n; k++)
		if (!strcmp(strchr(of.arg[k], ':') + 1, id))
			i = k;
	assert_true(i >= 0);
	assert_true(of.fd[i] >= 3 && of.fd[i] != slave);
	assert_int_equal(fstat(of.fd[i], &got), 0);
	assert_int_equal(got.st_rdev, st.st_rdev);
	snprintf(want, sizeof(want), "fd[%d]:%s", of.fd[i], id);
	assert_string_equal(of.arg[i], want);
	vg_outfiles_close(&of);

	/* the terminal closed since: nothing handed over for it */
	close(slave);
	close(master);
	assert_int_equal(vg_outfiles_open(dir, 0, &of, &e), 0);
	for (int k = 0; k < of.n; k++)
		assert_null(strstr(of.arg[k], id));
	vg_outfiles_close(&of);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noted_and_handed_over),
		cmocka_unit_test(test_image_without_the_file),
		cmocka_unit_test(test_terminal),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
