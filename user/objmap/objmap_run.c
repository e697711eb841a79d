/* The object map of a run (objmap.h): fed from the allocation events of
 * its specs, and, for what those do not say, the process itself: its
 * mappings (the heap's ranges, which memory is whose), its globals (the
 * symbols of the program and its libraries) and its strings
 * (strlen_at). */
#include "objmap_internal.h"
#include "allocs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "feature/feature.h"
#include "spec/spec.h"
#include "proc/proc.h"
#include "sym/maps.h"
#include "sym/symbolize.h"
#include "util/err.h"

#define STRLEN_MAX 65536	/* strlen_at's most bytes read */

struct objmap_run {
	struct vg_run *run;
	const struct vg_spec *spec;
	struct vg_allocs *allocs;	/* the spec's allocator events */
	bool attached;
	struct vg_symbolizer *sym;	/* globals */
	struct vg_maps maps;		/* the process's, read when a pointer
					 * falls in none of them */
	bool maps_ok;
};

void vg_objmap_run_free(struct objmap_run *r)
{
	if (!r)
		return;
	vg_symbolizer_free(r->sym);
	if (r->maps_ok)
		vg_maps_free(&r->maps);
	vg_allocs_free(r->allocs);
	free(r);
}

static bool oracle_eval(void *ctx, uint32_t pid, int pred, uint64_t p,
			uint64_t n, int64_t *out);

int vg_objmap_bind(struct vg_objmap *m, struct vg_run *run,
		   const struct vg_spec *spec, bool attached)
{
	struct objmap_run *r = calloc(1, sizeof(*r));

	if (!r)
		return -1;
	m->run = r;
	r->run = run;
	r->spec = spec;
	r->attached = attached;
	if (!(r->allocs = vg_allocs_new(spec)))
		return -1;
	m->oracle.ctx = m;
	m->oracle.eval = oracle_eval;
	/* vigil run's process: its every allocation comes to the map (until
	 * a record is lost: oracle_eval) */
	vg_objmap_complete(m, !attached);
	return 0;
}

bool vg_objmap_follows(const struct vg_objmap *m, int event)
{
	struct vg_alloc_shape sh;

	if (!m || !m->run)
		return false;
	vg_alloc_shape_of(m->run->allocs, event, &sh);
	return sh.what != VG_ALLOC_NONE;
}

void vg_objmap_unseen_now(struct vg_objmap *m)
{
	struct vg_maps maps;
	struct vg_err e = { 0 };
	pid_t pid = m && m->run ? vg_run_pid(m->run->run) : 0;

	if (pid <= 0)
		return;
	if (vg_maps_read(pid, &maps, &e)) {
		vg_objmap_unseen(m, 0, UINT64_MAX);	/* all of it */
		return;
	}
	for (size_t i = 0; i < maps.n; i++)
		if (maps.v[i].path && !strcmp(maps.v[i].path, "[heap]"))
			vg_objmap_unseen(m, maps.v[i].start, maps.v[i].end);
	vg_maps_free(&maps);
}

void vg_objmap_exec(struct vg_objmap *m)
{
	struct objmap_run *r = m ? m->run : NULL;

	if (!r)
		return;
	(void)vg_objmap_clear(m);	/* out of memory: all unknown */
	vg_symbolizer_free(r->sym);
	r->sym = NULL;
	if (r->maps_ok)
		vg_maps_free(&r->maps);
	r->maps_ok = false;
}

const struct vg_mem_oracle *vg_objmap_oracle(struct vg_objmap *m)
{
	return m && m->run ? &m->oracle : NULL;
}

void vg_objmap_event(struct vg_objmap *m, const struct vg_mon_event *ev)
{
	struct objmap_run *r = m ? m->run : NULL;
	struct vg_alloc a;

	if (!r || (pid_t)ev->pid != vg_run_pid(r->run))
		return;
	switch (vg_alloc_of(r->allocs, ev, &a)) {
	case VG_ALLOC_FREE:
		break;		/* once the monitor has seen it */
	case VG_ALLOC_NEW:
		/* a realloc that failed (NULL for a size that is not 0) left
		 * its block as it was, the program's (the agent's map keeps
		 * it too, inproc/objmap.c) */
		if (a.old && (a.addr || !a.size_known || !a.size))
			vg_objmap_release(m, a.old);
		if (a.addr && a.pool) {
			/* a size unread: the block around it answers */
			if (a.size_known)
				vg_objmap_pool_alloc(m, a.addr, a.size,
						     ev->event);
		} else if (a.addr)
			vg_objmap_alloc(m, a.addr, a.size, a.size_known,
					ev->event);
		break;
	case VG_ALLOC_NONE:
		break;
	}
}

void vg_objmap_event_done(struct vg_objmap *m, const struct vg_mon_event *ev)
{
	struct objmap_run *r = m ? m->run : NULL;
	struct vg_alloc a;

	if (r && (pid_t)ev->pid == vg_run_pid(r->run) &&
	    vg_alloc_of(r->allocs, ev, &a) == VG_ALLOC_FREE) {
		if (a.pool)
			vg_objmap_pool_release(m, a.addr);
		else
			vg_objmap_release(m, a.addr);
	}
}

/* ---- the process: mappings, globals, strings -------------------------- */

static const struct vg_map *mapping_of(const struct objmap_run *r,
				       uint64_t p)
{
	for (size_t i = 0; r->maps_ok && i < r->maps.n; i++)
		if (p >= r->maps.v[i].start && p < r->maps.v[i].end)
			return &r->maps.v[i];
	return NULL;
}

/* the process's mappings again: a pointer in none of those read before
 * (a mapping made since); the heap's range to the map */
/* running, or stopped: not a zombie, not gone, not exiting */
static bool alive(pid_t pid)
{
	char st = vg_proc_state(pid);

	return st && st != 'Z' && st != 'X';
}

static const struct vg_map *remap(struct vg_objmap *m, pid_t pid, uint64_t p)
{
	struct objmap_run *r = m->run;
	struct vg_err e;

	if (r->maps_ok)
		vg_maps_free(&r->maps);
	r->maps_ok = !vg_maps_read(pid, &r->maps, &e);
	/* A process that has ended (a zombie's maps read empty) or that is
	 * ending no longer shows the memory its last events used (printf's
	 * buffer on the stack, written out at exit): its maps say nothing,
	 * and what falls outside them is unknown, not invalid */
	if (r->maps_ok && (!r->maps.n || !alive(pid))) {
		vg_maps_free(&r->maps);
		r->maps_ok = false;
	}
	for (size_t i = 0; r->maps_ok && i < r->maps.n; i++)
		if (r->maps.v[i].path && !strcmp(r->maps.v[i].path, "[heap]"))
			/* (complete as bind said, unless a record was lost
			 * since: check_lost) */
			vg_objmap_heap(m, r->maps.v[i].start, r->maps.v[i].end,
				       m->complete && !r->attached);
	return mapping_of(r, p);
}

/* Where a program's globals are: its file's mappings, and the anonymous
 * one right after them (.bss past the file's last page). Not stacks,
 * not the heap, not a mapping of its own: those have no symbols, and
 * asking the symbolizer there would read the maps again each time. */
static bool may_hold_globals(const struct objmap_run *r, const struct vg_map *mp)
{
	const struct vg_map *prev;

	if (mp->path)
		return mp->path[0] != '[';
	if (mp == r->maps.v)
		return false;
	prev = mp - 1;
	return prev->end == mp->start && prev->path && prev->path[0] != '[';
}

static void find_global(struct vg_objmap *m, pid_t pid, uint64_t p,
			const struct vg_map *mp)
{
	struct objmap_run *r = m->run;
	struct vg_data_sym d;

	if (!may_hold_globals(r, mp))
		return;
	if (!r->sym && !(r->sym = vg_symbolizer_new(pid)))
		return;
	/* a static (.symtab's local symbols, or DWARF's) as a global */
	if (vg_symbolize_global(r->sym, p, &d) && d.size)
		vg_objmap_global(m, p - d.off, d.size, mp->perms[1] == 'w',
				 d.name);
}

/* the length of the string at p, at most max bytes read: -1 when it
 * cannot be read */
static int64_t read_strlen(pid_t pid, uint64_t p, uint64_t max)
{
	char buf[4096];
	uint64_t done = 0;

	if (max > STRLEN_MAX)
		max = STRLEN_MAX;
	while (done < max) {
		size_t want = max - done < sizeof(buf) ? max - done : sizeof(buf);
		struct iovec l = { buf, want }, rv = { (void *)(p + done), want };
		ssize_t got = process_vm_readv(pid, &l, 1, &rv, 1, 0);
		char *nul;

		if (got <= 0)
			return done ? (int64_t)done : -1;
		if ((nul = memchr(buf, 0, (size_t)got)))
			return (int64_t)(done + (uint64_t)(nul - buf));
		done += (uint64_t)got;
	}
	return (int64_t)max;
}

/* A record lost (the ring was full) may have been an allocation: the
 * map has not seen every one any more. Asked where it matters, for a p
 * in no entry of the map (the counts are read from the kernel) */
static void check_lost(struct vg_objmap *m, uint64_t p)
{
	struct vg_run_counts c;
	struct vg_obj o;

	vg_objmap_lookup(m, p, &o);
	if (o.kind != VG_OBJ_UNKNOWN)
		return;
	vg_run_counts(m->run->run, &c);
	if (c.lost)
		vg_objmap_complete(m, false);
}

static bool oracle_eval(void *ctx, uint32_t pid, int pred, uint64_t p,
			uint64_t n, int64_t *out)
{
	struct vg_objmap *m = ctx;
	const struct vg_map *mp;
	pid_t target = vg_run_pid(m->run->run);

	/* a followed child's memory is not this map's */
	if (target <= 0 || (pid_t)pid != target)
		return false;
	if (pred == VG_MEM_STRLEN_AT) {
		int64_t len = read_strlen(target, p, n);

		if (len < 0)
			return false;
		*out = len;
		return true;
	}
	if ((pred == VG_MEM_FREEABLE || pred == VG_MEM_FREED) && m->complete)
		check_lost(m, p);
	if (vg_objmap_pred(m, pred, p, n, out))
		return true;
	if (!(mp = mapping_of(m->run, p)) && !(mp = remap(m, target, p))) {
		if (!m->run->maps_ok)
			return false;	/* the process is gone: unknown */
		/* in no mapping at all: no object there */
		*out = 0;
		return pred != VG_MEM_FREED || !m->freed_evicted;
	}
	find_global(m, target, p, mp);
	return vg_objmap_pred(m, pred, p, n, out);
}
