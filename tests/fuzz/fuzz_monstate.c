/* libFuzzer target: the monitor state saved beside a checkpoint's image
 * and read back by `vigil restore --monitor` (user/ckpt/monstate.c).
 * Any input must load or fail with an error naming the file and line,
 * never crash, leak or grow without bound. User-tier properties only: the
 * kernel tier's table needs a loaded BPF object. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "monitor/monitor.h"
#include "ckpt/ckpt.h"
#include "probe/probe.h"

static const char spec_text[] =
	"property queue_bounds\n"
	"slice on ptr q\n"
	"int n = 0, max = 0\n"
	"state init accepting {\n"
	"  after queue_new(size) returns q { max = size; } -> ready\n"
	"}\n"
	"state ready accepting {\n"
	"  before queue_push(q) when n < max { n = n + 1; } -> ready\n"
	"  before queue_push(q) -> overflow\n"
	"}\n"
	"state overflow violation\n"
	"property total\n"
	"global int sum = 0\n"
	"state s accepting { before add(x) { sum = sum + x; } -> s }\n";

/* monstate.c restores kernel-tier slices through the probe layer, which
 * this target does not link: with kernel == NULL it is never called */
int vg_probe_set_kslice(struct vg_probe *p, int prop, const uint64_t *key,
			int state, const int64_t *vars, struct vg_err *e)
{
	__builtin_trap();
}

int vg_probe_foreach_kslice(const struct vg_probe *p, vg_kslice_cb cb,
			    void *ctx)
{
	__builtin_trap();
}

int vg_probe_kprop_of(const struct vg_probe *p, int kprop)
{
	__builtin_trap();
}

int vg_probe_foreach_kslice_proc(const struct vg_probe *p,
				 vg_kslice_proc_cb cb, void *ctx)
{
	__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vg_spec *spec = vg_spec_new();
	struct vg_monitor *m;
	struct vg_err e;
	char path[64];
	int fd = memfd_create("fuzz.state", 0);

	if (!spec || fd < 0 ||
	    vg_spec_load_string(spec, "fuzz.vigil", spec_text, &e))
		__builtin_trap();
	if (write(fd, data, size) != (ssize_t)size)
		__builtin_trap();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	m = vg_monitor_new(spec, NULL, NULL, &e);
	if (!m)
		__builtin_trap();
	vg_monstate_load(path, spec, m, NULL, NULL, &e);
	vg_monitor_free(m);
	vg_spec_free(spec);
	close(fd);
	return 0;
}
