/* libmicrohttpd and libsystemd, loaded when first used (user/util/
 * lazylib.c): not mapped before, and then the calls reach the libraries'
 * own functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "util/lazylib.h"

static bool mapped(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	fclose(f);
	return found;
}

/* first: nothing has used them yet */
static void test_not_loaded_at_start(void **state)
{
	assert_false(mapped("libmicrohttpd"));
	assert_false(mapped("libsystemd"));
	assert_false(mapped("libgnutls"));
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *data,
			      size_t *size, void **con_cls)
{
	return MHD_NO;
}

static void test_mhd_daemon(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
			     answer, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_END);
	assert_null(vg_lazylib_mhd_error());
	assert_true(mapped("libmicrohttpd"));
	assert_non_null(d);
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	assert_non_null(info);
	assert_true(info->port > 0);
	MHD_stop_daemon(d);
}

static void test_journal_send(void **state)
{
	char msg[] = "MESSAGE=vigil test_lazylib";
	struct iovec iov = { msg, strlen(msg) };
	int rc = sd_journal_sendv(&iov, 1);

	assert_null(vg_lazylib_systemd_error());
	assert_true(mapped("libsystemd"));
	/* 0 where journald runs, its own error where it does not; never
	 * the shim's "not loaded" */
	assert_int_not_equal(rc, -ELIBACC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_loaded_at_start),
		cmocka_unit_test(test_mhd_daemon),
		cmocka_unit_test(test_journal_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
