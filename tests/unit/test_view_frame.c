/* The live view's frames (user/view/view_frame.c) and the transition index
 * the monitor's hook reports, which the view counts edges by: no kernel,
 * a monitor fed by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "monitor/monitor.h"
#include "spec_load.h"
#include "view/view_frame.h"

static const char *queue_spec =
	"property other \"a second property, to shift the indexes\"\n"
	"slice on x\n"
	"event ping(x)\n"
	"state a accepting { ping(x) -> b }\n"
	"state b accepting { ping(x) -> a }\n"
	"property queue \"bounded\"\n"
	"slice on ptr q\n"
	"int n = 0, max = 0\n"
	"event new(q, size)\n"
	"event push(q)\n"
	"event pop(q)\n"
	"state init accepting { new(q, size) { max = size; } -> ready }\n"
	"state ready accepting {\n"
	"  push(q) when n < max { n = n + 1; } -> ready\n"
	"  push(q) -> overflow\n"
	"  pop(q) when n > 0 { n = n - 1; } -> ready\n"
	"}\n"
	"state overflow violation\n";

static uint64_t fired[16];
static const struct vg_spec *spec;

static void on_transition(void *ctx, const struct vg_slice_view *s, int from,
			  int to, const struct vg_mon_event *ev)
{
	const struct vg_transition *t;

	assert_true(s->trans >= 0 && s->trans < spec->props[s->prop].ntrans);
	t = &spec->props[s->prop].trans[s->trans];
	/* the index names the transition taken, guards included */
	assert_int_equal(t->from, from);
	assert_int_equal(t->to, to);
	assert_int_equal(t->event, ev->event);
	fired[vg_frame_tindex(spec, s->prop, s->trans)]++;
}

static void feed(struct vg_monitor *m, const char *name, uint64_t a, uint64_t b)
{
	static uint64_t seq;
	struct vg_mon_event ev = { .seq = ++seq };
	struct vg_err e;

	ev.event = -1;
	for (int i = 0; i < spec->nevents; i++)
		if (!strcmp(spec->events[i].name, name))
			ev.event = i;
	assert_true(ev.event >= 0);
	ev.slot[0] = a;
	ev.slot[1] = b;
	assert_int_equal(vg_monitor_event(m, &ev, &e), 0);
}

static void test_frame(void **state)
{
	struct vg_spec *s = load(queue_spec);
	struct vg_monitor_hooks hooks = { .transition = on_transition };
	struct vg_err e;
	struct vg_monitor *m;
	bool kernel[2] = { false, false };
	const char *viol[] = { "{\"property\":\"queue\"}" };
	struct vg_frame_in in = { 0 };
	char *json;
	size_t len;

	(void)state;
	spec = s;
	memset(fired, 0, sizeof(fired));
	assert_int_equal(vg_frame_ntrans(s), 2 + 4);
	assert_int_equal(vg_frame_tindex(s, 1, 2), 4);
	m = vg_monitor_new(s, NULL, &hooks, &e);
	assert_non_null(m);
	feed(m, "new", 0x1000, 2);
	feed(m, "new", 0x2000, 1);
	feed(m, "push", 0x1000, 0);
	feed(m, "push", 0x2000, 0);
	feed(m, "push", 0x2000, 0);	/* over its max of 1 */
	feed(m, "pop", 0x1000, 0);
	feed(m, "ping", 7, 0);
	/* per edge, property 0's first: ping a->b; then new, the two
	 * pushes (ok, overflow) and pop */
	assert_int_equal(fired[0], 1);
	assert_int_equal(fired[1], 0);
	assert_int_equal(fired[2], 2);
	assert_int_equal(fired[3], 2);
	assert_int_equal(fired[4], 1);
	assert_int_equal(fired[5], 1);

	in.spec = s;
	in.mons = &m;
	in.nmons = 1;
	in.kernel = kernel;
	in.fired = fired;
	in.events = 7;
	in.phase = "stopped";
	in.note = "a \"quoted\" note";
	in.sel_prop = 1;
	in.sel_state = 1;
	in.sel_cap = 10;
	in.violations = viol;
	in.nviolations = 1;
	in.seq = 3;
	json = vg_frame_build(&in, &len);
	assert_non_null(json);
	assert_int_equal(strlen(json), len);
	assert_null(strchr(json, '\n'));	/* one server-sent event line */
	assert_non_null(strstr(json, "\"seq\":3,"));
	assert_non_null(strstr(json, "\"phase\":\"stopped\",\"note\":\"a \\\"quoted\\\" note\""));
	assert_non_null(strstr(json, "{\"name\":\"other\",\"tier\":\"user\",\"states\":[{\"name\":\"a\",\"kind\":\"accepting\",\"slices\":0},{\"name\":\"b\",\"kind\":\"accepting\",\"slices\":1}],\"edges\":[1,0],\"live\":1}"));
	assert_non_null(strstr(json, "{\"name\":\"ready\",\"kind\":\"accepting\",\"slices\":1},{\"name\":\"overflow\",\"kind\":\"violation\",\"slices\":1}],\"edges\":[2,2,1,1],\"live\":2}"));
	assert_non_null(strstr(json, "\"violations\":[{\"property\":\"queue\"}]"));
	/* the selected state's slice, with its variables: q 0x1000 pushed
	 * once and popped once */
	assert_non_null(strstr(json, "\"selected\":{\"prop\":1,\"state\":1,\"total\":1,\"slices\":[{\"slice\":{\"q\":\"0x1000\"},\"vars\":{\"n\":0,\"max\":2},\"inconclusive\":false}]}"));
	free(json);

	/* no selection, nothing fired yet */
	in.sel_prop = -1;
	in.fired = NULL;
	in.note = NULL;
	json = vg_frame_build(&in, &len);
	assert_non_null(strstr(json, "\"note\":null"));
	assert_non_null(strstr(json, "\"selected\":null}"));
	assert_non_null(strstr(json, "\"edges\":[0,0,0,0]"));
	assert_null(strstr(json, "\"gone\""));
	free(json);

	/* property 0 unloaded (vigil unload): the page hides it; its
	 * slice is gone, the other property's stays */
	vg_monitor_disable(m, 0);
	json = vg_frame_build(&in, &len);
	assert_non_null(strstr(json, "{\"name\":\"other\",\"tier\":\"user\",\"gone\":true,\"states\":[{\"name\":\"a\",\"kind\":\"accepting\",\"slices\":0},{\"name\":\"b\",\"kind\":\"accepting\",\"slices\":0}]"));
	assert_non_null(strstr(json, "{\"name\":\"ready\",\"kind\":\"accepting\",\"slices\":1},{\"name\":\"overflow\",\"kind\":\"violation\",\"slices\":1}]"));
	assert_int_equal(strstr(strstr(json, "\"gone\":true") + 1, "\"gone\"") == NULL, 1);
	free(json);
	vg_monitor_free(m);
	vg_spec_free(s);
}

static void test_violation(void **state)
{
	struct vg_spec *s = load(queue_spec);
	uint64_t params[VG_MAX_PARAMS] = { 0x2000 };
	struct vg_slice_view v = { .prop = 1, .mask = 1, .params = params,
				   .state = 2, .trans = 3 };
	char *json;

	(void)state;
	json = vg_frame_violation(s, &v, 1, "push(0x2000)",
				  "\"event\":{\"name\":\"push\"},\"tid\":5", "[]");
	assert_string_equal(json, "{\"property\":\"queue\",\"prop\":1,\"slice\":{\"q\":\"0x2000\"},\"from\":\"ready\",\"state\":\"overflow\",\"text\":\"push(0x2000)\",\"event\":{\"name\":\"push\"},\"tid\":5,\"evidence\":[]}");
	free(json);
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_violation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
