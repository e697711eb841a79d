/* A violation's report (user/report/report.c) leaves vigil in one write:
 * vigil's stderr is unbuffered, and a target that prints while vigil
 * reports (--on-violation=continue, on the same terminal or file) must
 * not land inside it. The stream here counts the writes it is given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/evidence.h"
#include "report/report.h"
#include "spec_load.h"

static const char *spec_text =
	"property once\n"
	"slice on a\n"
	"event use(a)\n"
	"int n = 0\n"
	"state w accepting {\n"
	"  use(a) when n == 1 -> bad\n"
	"  use(a) { n = 1; } -> w\n"
	"}\n"
	"state bad violation\n";

struct sink {
	int writes;
	char text[8192];
	size_t len;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct sink *k = cookie;
	size_t room = sizeof(k->text) - 1 - k->len;

	k->writes++;
	memcpy(k->text + k->len, buf, n < room ? n : room);
	k->len += n < room ? n : room;
	k->text[k->len] = 0;
	return (ssize_t)n;
}

static void test_violation_in_one_write(void **state)
{
	struct vg_spec *spec = load(spec_text);
	struct sink k = { 0 };
	cookie_io_functions_t io = { .write = sink_write };
	FILE *f = fopencookie(&k, "w", io);
	uint64_t params[VG_MAX_PARAMS] = { 7 };
	int64_t vars[1] = { 1 };
	struct vg_slice_view s = { .prop = 0, .mask = 1, .params = params,
				   .vars = vars, .state = 1, .trans = -1 };
	struct vg_mon_event ev = { 0 };
	struct vg_evidence *x = vg_evidence_new(spec, 0, 16);
	struct vg_err e = { 0 };
	struct vg_report *r;

	(void)state;
	assert_non_null(f);
	assert_non_null(x);
	setvbuf(f, NULL, _IONBF, 0);	/* as stderr */
	r = vg_report_new(spec, f, NULL, &e);
	assert_non_null(r);
	vg_report_set_evidence(r, x);
	ev.event = vg_spec_find_event(spec, VG_EV_NAMED, "use");
	ev.slot[0] = 7;
	ev.seq = 1;
	s.state = 0;
	vg_evidence_add(x, &s, 0, 0, &ev);
	ev.seq = 2;
	s.state = 1;
	vg_evidence_add(x, &s, 0, 1, &ev);
	vg_report_violation(r, &s, 0, &ev, false);
	assert_int_equal(k.writes, 1);
	assert_non_null(strstr(k.text, "VIOLATION of once"));
	assert_non_null(strstr(k.text, "  state  w -> bad (violation)\n"));
	assert_non_null(strstr(k.text, "recorded steps"));
	/* the next report is a write of its own, the text still going to
	 * the stream it was given */
	vg_report_backtrace(r, &s, &ev);
	assert_int_equal(k.writes, 2);
	assert_non_null(strstr(k.text, "backtrace of"));
	vg_report_free(r);
	fclose(f);
	vg_evidence_free(x);
	vg_spec_free(spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_violation_in_one_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
