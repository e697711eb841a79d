/* The kernel tier's object map, the session's part (bpf/kmem.bpf.h;
 * the probes own the map, probe/probe.h): its size from the plan, each
 * allocation event's part, and at the launched program's exec, before it
 * runs, its globals and heap's start (user/objmap/om_fill.h, as the
 * in-process agent's map gets them); then at each of the loader's
 * rendezvous (the process held there by its probe), the globals of the
 * libraries it mapped, before their code runs. */
#include "session_internal.h"

#include <string.h>

#include "objmap/om_fill.h"
#include "plan/plan.h"
#include "probe/probe.h"
#include "proc/proc.h"

/* ld.so's globals, filed with the program's at the exec */
#define LOADER_GLOBALS 4096

uint64_t vg_session_objmap_objects(const struct vg_plan *plan,
				   const char *binary)
{
	if (!plan->objmap_bpf)
		return 0;
	return plan->om_objects + vg_om_fill_count_file(binary) +
	       LOADER_GLOBALS;
}

/* does the kernel tier's step see event ev: a kernel-tier property binds
 * it, and a uprobe takes it? */
static bool stepped(void *ctx, int ev)
{
	const struct vg_plan *plan = ctx;

	if (!plan->events[ev].conf.nkprops)
		return false;
	for (int i = 0; i < plan->nsites; i++)
		if (plan->sites[i].event == ev && !plan->sites[i].fast)
			return true;
	return false;
}

int vg_session_objmap_events(struct session *ss, const struct vg_plan *plan,
			     struct vg_err *e)
{
	struct vg_fast_omev omev[VG_MAX_EVENTS];
	uint64_t filed[VG_MAX_EVENTS / 64] = { 0 };
	bool whole;

	if (!plan->objmap_bpf)
		return 0;
	memset(omev, 0, sizeof(omev));
	whole = vg_om_fill_roles(plan->spec, plan->nevents, omev, filed,
				 stepped, (void *)plan);
	return vg_probe_objmap_events(ss->p.probe, omev, filed, plan->nevents,
				      whole, e);
}

/* an object not filed yet: marked filed */
static bool new_object(void *ctx, uint64_t start)
{
	return vg_probe_objmap_take(ctx, start);
}

void vg_session_objmap_exec(struct session *ss)
{
	struct vg_objmap *m = vg_probe_objmap_start(ss->p.probe,
						    vg_proc_stat_u64(ss->pid,
								     47));

	if (m)
		vg_om_fill_globals_if(m, ss->pid, new_object, ss->p.probe);
}

void vg_session_objmap_maps(struct session *ss, pid_t pid)
{
	struct vg_objmap *m = vg_probe_objmap_ready(ss->p.probe);

	if (m && pid == ss->pid)
		vg_om_fill_globals_if(m, ss->pid, new_object, ss->p.probe);
}

void vg_session_objmap_replaced(struct session *ss)
{
	/* the restored process's heap is not the one the map holds: all
	 * of it forgotten, and no arena (its blocks before now unknown,
	 * never "no object"); the globals of every object it maps filed */
	struct vg_objmap *m = vg_probe_objmap_ready(ss->p.probe)
				      ? vg_probe_objmap_start(ss->p.probe, 0)
				      : NULL;

	if (m)
		vg_om_fill_globals_if(m, ss->pid, new_object, ss->p.probe);
}
