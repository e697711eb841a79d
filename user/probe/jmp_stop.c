/* Entry sites placement moved or put on a jmp, and where a stop there
 * lands (jmp_stop.h). */
#include "jmp_stop.h"

#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "probe_internal.h"
#include "sym/maps.h"

struct vg_jmp_site {
	int event;
	int skipped;
	bool jmp;
	bool inproc;		/* the in-process tier's patch, moved */
	char *path;
	uint64_t offset;	/* the jmp's, in the file */
	int64_t to;		/* its target - its address */
};

int vg_jmp_stop_add(struct vg_probe *p, const struct vg_plan_site *u)
{
	struct vg_jmp_site *v;

	/* an in-process patch past the function's first instructions
	 * (plan_fast.c, moved_entry); a uprobe on a jmp or moved */
	if (u->fast ? u->patch == u->func : !u->jmp && !u->skipped)
		return 0;
	if (u->retprobe)
		return 0;
	v = realloc(p->jmps, (size_t)(p->njmps + 1) * sizeof(*v));
	if (!v)
		return -1;
	p->jmps = v;
	v = &v[p->njmps];
	*v = (struct vg_jmp_site){ .event = u->event, .skipped = u->skipped,
				   .jmp = u->jmp && !u->fast,
				   .inproc = u->fast,
				   .path = strdup(u->path),
				   .offset = u->offset, .to = u->jmp_to };
	if (!v->path)
		return -1;
	p->njmps++;
	return 0;
}

void vg_jmp_stop_free(struct vg_probe *p)
{
	for (int i = 0; i < p->njmps; i++)
		free(p->jmps[i].path);
	free(p->jmps);
	p->jmps = NULL;
	p->njmps = 0;
}

bool vg_jmp_stop_event(const struct vg_probe *p, int event, int *skipped,
		       bool *jmp)
{
	for (int i = 0; p && i < p->njmps; i++)
		if (p->jmps[i].event == event && !p->jmps[i].inproc) {
			*skipped = p->jmps[i].skipped;
			*jmp = p->jmps[i].jmp;
			return true;
		}
	return false;
}

bool vg_jmp_stop_inproc_moved(const struct vg_probe *p, int event)
{
	for (int i = 0; p && i < p->njmps; i++)
		if (p->jmps[i].event == event && p->jmps[i].inproc)
			return true;
	return false;
}

int vg_jmp_stop_mends(const struct vg_probe *p, pid_t pid, int event,
		      struct vg_gdb_pc_mend *m, int max)
{
	struct vg_maps maps;
	struct vg_err e = { 0 };
	int n = 0;

	if (!p || !p->njmps || vg_maps_read(pid, &maps, &e))
		return 0;
	for (int i = 0; i < p->njmps && n < max; i++) {
		const struct vg_jmp_site *s = &p->jmps[i];
		uint64_t at;

		/* by device and inode, or by path where the kernel's maps
		 * give an overlay's file the inode beneath (sym/maps.h) */
		if (s->event != event || !s->jmp ||
		    !(at = vg_maps_file_vaddr(&maps, s->path, s->offset)))
			continue;
		m[n].jmp = at;
		m[n].target = at + (uint64_t)s->to;
		n++;
	}
	vg_maps_free(&maps);
	return n;
}
