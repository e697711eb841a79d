/* The control channel (user/ctl/): a server polled on a thread of its
 * own, as the session's loop polls it, and the client with its timeout:
 * requests and responses, the version check, bad JSON, several requests
 * on one connection, a closed connection reported, no answer in time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl/ctl.h"

static volatile int stop_serving, closed_count, stall_ms;

static json_t *handler(void *ctx, int client, const char *cmd, json_t *args,
		       json_t *req)
{
	(void)ctx;
	(void)client;
	(void)req;
	if (!strcmp(cmd, "echo"))
		return json_pack("{s:b,s:O}", "ok", 1, "data", args);
	if (!strcmp(cmd, "slow")) {
		usleep(stall_ms * 1000);
		return json_pack("{s:b}", "ok", 1);
	}
	return json_pack("{s:b,s:s}", "ok", 0, "error", "unknown");
}

static void on_closed(void *ctx, int client)
{
	(void)ctx;
	(void)client;
	closed_count++;
}

static void *serve(void *arg)
{
	while (!stop_serving) {
		vg_ctl_serve(arg);
		usleep(1000);
	}
	return NULL;
}

struct fx {
	char dir[64];
	struct vg_ctl *c;
	pthread_t th;
};

static int setup(void **state)
{
	static struct fx f;
	struct vg_err e = { 0 };

	snprintf(f.dir, sizeof(f.dir), "/tmp/vigil-ctl-test.XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	setenv("TMPDIR", f.dir, 1);
	stop_serving = 0;
	closed_count = 0;
	f.c = vg_ctl_open(4242, handler, on_closed, NULL, &e);
	if (!f.c)
		return -1;
	pthread_create(&f.th, NULL, serve, f.c);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	stop_serving = 1;
	pthread_join(f->th, NULL);
	vg_ctl_close(f->c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_echo_and_mode(void **state)
{
	struct fx *f = *state;
	struct vg_err e = { 0 };
	struct stat st;
	json_t *r;

	assert_int_equal(stat(vg_ctl_path(f->c), &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	r = vg_ctl_call(vg_ctl_path(f->c), "echo",
			json_pack("[s,s]", "a", "b"), 2000, &e);
	assert_non_null(r);
	assert_true(json_is_true(json_object_get(r, "ok")));
	assert_int_equal(json_integer_value(json_object_get(r, "v")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "data"), 1)), "b");
	json_decref(r);
	r = vg_ctl_call(vg_ctl_path(f->c), "nope", NULL, 2000, &e);
	assert_non_null(r);
	assert_false(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
}

/* raw lines: a bad version, bad JSON, then a good request, on one
 * connection; the answers come in order */
static void test_raw_lines(void **state)
{
	struct fx *f = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *req = "{\"v\":2,\"cmd\":\"echo\"}\nnot json\n{\"v\":1,\"cmd\":\"echo\",\"args\":[\"x\"]}\n";
	char buf[4096] = "";
	size_t len = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), lines = 0;

	strcpy(sa.sun_path, vg_ctl_path(f->c));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	while (lines < 3 && len < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);

		assert_true(n > 0);
		len += (size_t)n;
		buf[len] = 0;
		lines = 0;
		for (char *p = buf; (p = strchr(p, '\n')); p++)
			lines++;
	}
	assert_non_null(strstr(buf, "unsupported protocol version"));
	assert_non_null(strstr(buf, "not a JSON object"));
	assert_non_null(strstr(buf, "\"data\":[\"x\"]"));
	assert_true(strstr(buf, "unsupported") < strstr(buf, "not a JSON"));
	close(fd);
	for (int i = 0; i < 200 && closed_count < 1; i++)
		usleep(5000);
	assert_int_equal(closed_count, 1);
}

static void test_timeout(void **state)
{
	struct fx *f = *state;
	struct vg_err e = { 0 };
	json_t *r;

	stall_ms = 600;
	r = vg_ctl_call(vg_ctl_path(f->c), "slow", NULL, 200, &e);
	assert_null(r);
	assert_non_null(strstr(e.msg, "did not answer within 200 ms"));
	usleep(700 * 1000);	/* let the server finish that one */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_echo_and_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
