/* libFuzzer target: the reader of vigil's own recordings (vigil run
 * --record, user/trace/record.c), header and records, and the monitor
 * behind it. Any input must give events or a clean error naming the file,
 * never a crash, a leak or memory without bound. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "monitor/monitor.h"
#include "trace/trace.h"

/* queue_bounds with a capture, so that every part of a record (fields,
 * return value, captures) is read; the seed corpus is a recording of
 * build/targets/queue under this spec */
static const char spec_text[] =
	"property queue_bounds\n"
	"slice on ptr q\n"
	"int n = 0, max = 0\n"
	"state init accepting {\n"
	"  after queue_new(size) returns q { max = size; } -> ready\n"
	"}\n"
	"state ready accepting {\n"
	"  before queue_push(q) when n < max && q->count >= 0 { n = n + 1; } -> ready\n"
	"  before queue_push(q) -> overflow\n"
	"  before queue_pop(q) when n > 0 { n = n - 1; } -> ready\n"
	"}\n"
	"state overflow violation\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vg_spec *spec = vg_spec_new();
	struct vg_monitor_opts mo = { .max_slices = 10000 };
	struct vg_monitor *m;
	struct vg_trace *t;
	struct vg_mon_event ev;
	struct vg_err e;
	char path[64];
	int fd = memfd_create("fuzz.rec", 0);

	if (!spec || fd < 0 ||
	    vg_spec_load_string(spec, "fuzz.vigil", spec_text, &e))
		__builtin_trap();	/* the fixed spec must load */
	if (write(fd, data, size) != (ssize_t)size)
		__builtin_trap();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	m = vg_monitor_new(spec, &mo, NULL, &e);
	if (!m)
		__builtin_trap();
	t = vg_trace_open(spec, path, &e);
	if (t) {
		while (vg_trace_next(t, &ev, &e) == 1)
			vg_monitor_event(m, &ev, &e);
		vg_trace_close(t);
	}
	vg_monitor_free(m);
	vg_spec_free(spec);
	close(fd);
	return 0;
}
