/* Calls checked against watched blocks (user/watchset/callacc.c): which
 * events a per-slice watch brings in, with its `outside` functions, and
 * the ranges a call's arguments give. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "monitor/monitor.h"
#include "watchset/callacc.h"

static const char *uaf =
	"property uaf \"u\"\n"
	"slice on ptr p\n"
	"uint size = 0\n"
	"state init accepting {\n"
	"  after malloc(n) returns p { size = n; } -> live\n"
	"}\n"
	"state live accepting {\n"
	"  before free(p) -> freed\n"
	"}\n"
	"state freed accepting {\n"
	"  %s *p @ size outside malloc, free -> bad\n"
	"  after malloc(n) returns p { size = n; } -> live\n"
	"}\n"
	"state bad violation\n";

static struct vg_spec *load(const char *kind)
{
	char text[1024];
	struct vg_spec *s = vg_spec_new();
	struct vg_err e;

	snprintf(text, sizeof(text), uaf, kind);
	assert_non_null(s);
	if (vg_spec_load_string(s, "uaf.vigil", text, &e))
		fail_msg("%s", e.msg);
	return s;
}

static int find(const struct vg_spec *s, enum vg_event_kind k,
		const char *name)
{
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].kind == k && !strcmp(s->events[i].name, name))
			return i;
	return -1;
}

static void test_events_added(void **state)
{
	struct vg_spec *s = load("access");
	struct vg_err e;
	int n0 = s->nevents, w = -1, cpy, len, rd;

	for (int i = 0; i < n0; i++)
		if (s->events[i].kind == VG_EV_ACCESS)
			w = i;
	assert_true(w >= 0);
	assert_int_equal(vg_callacc_add(s, &e), 0);
	assert_true(s->nevents > n0);
	cpy = find(s, VG_EV_BEFORE, "memcpy");
	len = find(s, VG_EV_BEFORE, "strlen");
	rd = find(s, VG_EV_SYSCALL, "read");
	assert_true(cpy >= n0 && len >= n0 && rd >= n0);
	for (int i = n0, faults = 0; i < s->nevents; i++) {
		const struct vg_event *ev = &s->events[i];

		assert_int_equal(ev->access_for, w + 1);
		/* and one SIGSEGV/SIGBUS in the block, a fault that is
		 * nobody's but the program's (glibc never touches an
		 * unmapped block) */
		if (vg_callacc_is_fault(s, i)) {
			assert_int_equal(ev->kind, VG_EV_SIGNAL);
			assert_int_equal(ev->nfields, VG_FSLOT_N);
			assert_int_equal(++faults, 1);
			continue;
		}
		assert_false(ev->kind == VG_EV_SIGNAL);
		/* the allocator's own copies are not the program's */
		assert_int_equal(ev->noutside, 2);
		assert_string_equal(ev->outside[0], "malloc");
		assert_int_equal(ev->outside_mask, s->events[w].outside_mask);
		assert_true(ev->nrng >= 1 && ev->nrng <= 2);
	}
	/* one probe per implementation: memmove is memcpy's when libc says
	 * so (x86-64 glibc) */
	{
		void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

		assert_non_null(libc);
		assert_int_equal(find(s, VG_EV_BEFORE, "memmove") < 0,
				 dlsym(libc, "memmove") == dlsym(libc, "memcpy"));
		dlclose(libc);
	}
	/* the spec's own events are untouched, and a second call adds
	 * nothing for the added ones */
	assert_int_equal(s->events[w].access_for, 0);
	{
		int n1 = s->nevents;

		assert_int_equal(vg_callacc_add(s, &e), 0);
		assert_int_equal(s->nevents, n1 + (n1 - n0));
	}
	vg_spec_free(s);
}

static void test_write_watch_takes_no_reads(void **state)
{
	struct vg_spec *s = load("write");
	struct vg_err e;

	assert_int_equal(vg_callacc_add(s, &e), 0);
	assert_int_equal(find(s, VG_EV_BEFORE, "strlen"), -1);
	assert_int_equal(find(s, VG_EV_SYSCALL, "write"), -1);
	assert_true(find(s, VG_EV_BEFORE, "memcpy") >= 0);
	assert_true(find(s, VG_EV_SYSCALL, "read") >= 0);
	vg_spec_free(s);
}

static void test_ranges(void **state)
{
	struct vg_spec *s = load("access");
	struct vg_callacc_range r[VG_CALLACC_RANGES];
	struct vg_mon_event ev;
	struct vg_err e;

	assert_int_equal(vg_callacc_add(s, &e), 0);
	memset(&ev, 0, sizeof(ev));
	ev.event = find(s, VG_EV_BEFORE, "memcpy");
	ev.slot[0] = 0x1000;	/* dst */
	ev.slot[1] = 0x2000;	/* src */
	ev.slot[2] = 24;
	assert_int_equal(vg_callacc_ranges(s, &ev, r), 2);
	assert_true(r[0].write && r[0].addr == 0x1000 && r[0].len == 24);
	assert_true(!r[1].write && r[1].addr == 0x2000 && r[1].len == 24);
	ev.slot[2] = 0;		/* copies nothing: touches nothing */
	assert_int_equal(vg_callacc_ranges(s, &ev, r), 0);

	ev.event = find(s, VG_EV_BEFORE, "strlen");
	ev.slot[0] = 0x3000;
	assert_int_equal(vg_callacc_ranges(s, &ev, r), 1);
	assert_true(!r[0].write && r[0].addr == 0x3000 && r[0].len == 1);

	ev.event = find(s, VG_EV_SYSCALL, "read");	/* read(fd, buf, n) */
	ev.slot[0] = 3;
	ev.slot[1] = 0x4000;
	ev.slot[2] = 512;
	assert_int_equal(vg_callacc_ranges(s, &ev, r), 1);
	assert_true(r[0].write && r[0].addr == 0x4000 && r[0].len == 512);

	/* a fault: the address, one byte, read or write as the page fault
	 * said; none without an address */
	ev.event = find(s, VG_EV_SIGNAL, "fault");
	assert_true(vg_callacc_is_fault(s, ev.event));
	memset(ev.slot, 0, sizeof(ev.slot));
	ev.slot[VG_FSLOT_SIG] = 11;
	ev.slot[VG_FSLOT_ADDR] = 0x5008;
	ev.slot[VG_FSLOT_WRITE] = 1;
	assert_int_equal(vg_callacc_ranges(s, &ev, r), 1);
	assert_true(r[0].write && r[0].addr == 0x5008 && r[0].len == 1);
	ev.slot[VG_FSLOT_WRITE] = 0;
	assert_int_equal(vg_callacc_ranges(s, &ev, r), 1);
	assert_false(r[0].write);
	ev.slot[VG_FSLOT_ADDR] = 0;
	assert_int_equal(vg_callacc_ranges(s, &ev, r), 0);

	/* a spec event is no call */
	ev.event = find(s, VG_EV_BEFORE, "free");
	assert_int_equal(vg_callacc_ranges(s, &ev, r), 0);
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_added),
		cmocka_unit_test(test_write_watch_takes_no_reads),
		cmocka_unit_test(test_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
