/* The user stacks of events: those the kernel's stack map keeps, read
 * from it by id, and those it had no room for (a bucket another stack
 * held, or the map full), which bpf/stacks.bpf.h sent in VG_REC_STACK
 * records under ids of their own and which are kept here for the run. */
#include "probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"
#include "sym/symbolize.h"
#include "vigil.skel.h"

_Static_assert(sizeof(struct bpf_stack_build_id) == VG_STACK_FRAME_BYTES,
	       "VG_STACK_FRAME_BYTES is not the kernel's frame");

typedef struct bpf_stack_build_id stack_frames[VG_STACK_DEPTH];

void vg_probe_keep_stack(struct vg_probe *p, const struct vg_rec_stack *r)
{
	uint32_t n = r->id - VG_STACK_SPILLED;
	stack_frames *grown;
	uint32_t cap;

	if (r->id < VG_STACK_SPILLED || n >= VG_STACK_MAX_SPILLED)
		return;
	if (n >= p->spilled_cap) {
		/* ids come from a counter the CPUs share: in order or near */
		cap = p->spilled_cap ? p->spilled_cap : 64;
		while (cap <= n)
			cap *= 2;
		if (!(grown = realloc(p->spilled, cap * sizeof(*grown))))
			return;		/* that stack reads as none */
		memset(grown + p->spilled_cap, 0,
		       (cap - p->spilled_cap) * sizeof(*grown));
		p->spilled = grown;
		p->spilled_cap = cap;
	}
	memset(p->spilled[n], 0, sizeof(p->spilled[n]));
	memcpy(p->spilled[n], r->frames,
	       r->nbytes < sizeof(r->frames) ? r->nbytes : sizeof(r->frames));
}

void vg_probe_stacks_free(struct vg_probe *p)
{
	free(p->spilled);
	p->spilled = NULL;
	p->spilled_cap = 0;
}

int vg_probe_stack(const struct vg_probe *p, int64_t id,
		   struct vg_stack_frame *out, int max)
{
	stack_frames map_frames;
	const struct bpf_stack_build_id *frames = map_frames;
	uint32_t key = (uint32_t)id;
	int n = 0;

	memset(map_frames, 0, sizeof(map_frames));
	if (id < 0)
		return 0;
	if (id >= VG_STACK_SPILLED) {
		if (id - VG_STACK_SPILLED >= p->spilled_cap)
			return 0;
		frames = p->spilled[id - VG_STACK_SPILLED];
	} else if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.stacks),
				       &key, map_frames)) {
		return 0;
	}
	for (; n < max && n < VG_STACK_DEPTH; n++) {
		if (frames[n].status == BPF_STACK_BUILD_ID_EMPTY)
			break;
		out[n].has_build_id = frames[n].status == BPF_STACK_BUILD_ID_VALID;
		memcpy(out[n].build_id, frames[n].build_id, 20);
		out[n].offset = out[n].has_build_id ? frames[n].offset
						    : frames[n].ip;
	}
	return n;
}

int vg_probe_stack_lines(const struct vg_probe *p, int64_t id,
			 struct vg_symbolizer *(*get)(void *ctx), void *ctx,
			 uint64_t caller, char (*lines)[320], int max)
{
	struct vg_stack_frame fr[VG_STACK_DEPTH];
	struct vg_symbolizer *sy;
	int n = vg_probe_stack(p, id, fr, VG_STACK_DEPTH), out = 0;

	if (!n || !(sy = get(ctx)))
		return 0;
	for (int i = 0; i < n && out < max; i++) {
		struct vg_frame f;

		if (fr[i].has_build_id)
			vg_symbolize_file(sy, fr[i].build_id, fr[i].offset,
					  out > 0, &f);
		else
			vg_symbolize(sy, fr[i].offset, out > 0, &f);
		vg_frame_format(&f, lines[out], sizeof(lines[out]));
		/* the kernel adds that caller itself when the function
		 * starts with push %rbp or endbr64 (6.11's
		 * is_uprobe_at_func_entry): once is enough */
		if (i == 1 && out == 2 && !strcmp(lines[1], lines[2]))
			continue;
		out++;
		if (i == 0 && out < max && caller) {
			vg_symbolize(sy, caller, true, &f);
			vg_frame_format(&f, lines[out], sizeof(lines[out]));
			out++;
		}
	}
	return out;
}
