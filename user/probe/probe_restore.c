/* What a restore inside a session resets in the probes' own state: the
 * kernel tier's slice table (the checkpoint's slices are written back
 * after), the per-event counts (back to the checkpoint's), and the exit
 * the lifecycle tracepoint saw when the replaced process was killed. */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "vigil.skel.h"

void vg_probe_clear_kslices(struct vg_probe *p)
{
	enum { CHUNK = 4096 };
	int fd = bpf_map__fd(p->skel->maps.kslots);
	struct vg_kslot *zero = calloc(CHUNK, sizeof(*zero));
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));

	/* the target is stopped and its probes detached: nothing else
	 * writes the table. The whole array, a chunk per system call (a
	 * lookup and an update per slot took a quarter of a restore) */
	for (uint32_t at = 0; zero && keys && at < p->kslot_cap; at += CHUNK) {
		__u32 n = p->kslot_cap - at < CHUNK ? p->kslot_cap - at : CHUNK;
		LIBBPF_OPTS(bpf_map_batch_opts, bo);

		for (__u32 i = 0; i < n; i++)
			keys[i] = at + i;
		if (bpf_map_update_batch(fd, keys, zero, &n, &bo))
			break;
	}
	free(zero);
	free(keys);
	p->skel->bss->kslot_count = 0;
}

static void set_percpu(const struct vg_probe *p, struct bpf_map *map,
		       uint32_t key, uint64_t value)
{
	uint64_t vals[p->ncpus];

	memset(vals, 0, sizeof(vals));
	vals[0] = value;
	bpf_map_update_elem(bpf_map__fd(map), &key, vals, BPF_ANY);
}

void vg_probe_set_counts(struct vg_probe *p, int event, uint64_t hits,
			 uint64_t lost)
{
	set_percpu(p, p->skel->maps.ev_hits, (uint32_t)event, hits);
	set_percpu(p, p->skel->maps.ev_lost, (uint32_t)event, lost);
}

void vg_probe_forget_exit(struct vg_probe *p)
{
	p->skel->bss->target_exit_status = 0;
	p->skel->bss->target_exit_ns = 0;
	p->skel->bss->target_exited = 0;
}
