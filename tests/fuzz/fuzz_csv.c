/* libFuzzer target: the CSV trace reader and the monitor behind it. Any
 * input must give events or a clean error, never a crash or a leak. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "monitor/monitor.h"
#include "trace/trace.h"

static const char spec_text[] =
	"property unsafe_iter\n"
	"slice on c, i\n"
	"event create(c, i)\n"
	"event update(c)\n"
	"event next(i)\n"
	"state init accepting { create(c, i) -> live }\n"
	"state live accepting { update(c) -> stale  next(i) -> live }\n"
	"state stale accepting { update(c) -> stale  next(i) -> bad }\n"
	"state bad violation\n"
	"property bid\n"
	"int total = 0\n"
	"event bid(item, amount)\n"
	"state open { bid(item, amount) when amount > 0 { total += amount; } -> open\n"
	"             bid(item, amount) -> bad }\n"
	"state bad violation\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vg_spec *spec = vg_spec_new();
	struct vg_err e;
	struct vg_monitor_opts mo = { .max_slices = 10000 };
	struct vg_monitor *m;
	size_t start = 0;
	uint64_t lineno = 0;

	if (!spec || vg_spec_load_string(spec, "fuzz.vigil", spec_text, &e))
		__builtin_trap();	/* the fixed spec must load */
	m = vg_monitor_new(spec, &mo, NULL, &e);
	if (!m)
		__builtin_trap();
	while (start < size) {
		const char *line = (const char *)data + start;
		const char *nl = memchr(line, '\n', size - start);
		size_t len = nl ? (size_t)(nl - line) : size - start;
		struct vg_mon_event ev;

		if (vg_csv_parse_line(spec, line, len, ++lineno, &ev, &e) == 1) {
			ev.seq = lineno;
			vg_monitor_event(m, &ev, &e);
		}
		start += len + 1;
	}
	vg_monitor_free(m);
	vg_spec_free(spec);
	return 0;
}
