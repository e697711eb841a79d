/* Names of pointers in reports (symval.h): the globals of the program
 * and its libraries, the heap blocks the run saw allocated. */
#include "symval.h"

#include <stdlib.h>
#include <string.h>

#include "feature/feature.h"
#include "objmap/allocs.h"
#include "probe/probe.h"
#include "report/report.h"
#include "spec/spec.h"
#include "sym/cxxnames.h"
#include "sym/symbolize.h"
#include "util/addrmap.h"

/* The dynamic loader calls it each time the set of loaded objects
 * changes (r_debug's r_brk, where gdb learns of shared libraries): at the
 * start, once before and once after it maps the needed libraries, and
 * around each dlopen and dlclose. */
#define RENDEZVOUS "_dl_debug_state"

#define MAX_BLOCKS 65536

enum alloc_kind { NOT_ALLOC, ALLOC, FREE };

/* how an allocator's event gives the block: which positions multiply to
 * its size (-1: none), and for realloc the old block's position */
struct block {
	uint64_t addr;
	uint64_t size;		/* 0: not known */
	int event;		/* the allocation's event */
	int64_t stack;		/* its stack id, -1 without */
};

struct vg_symval {
	struct vg_run *run;		/* the session's, seen through
					 * vg_run_pid and vg_symval_host_* */
	const struct vg_spec *spec;
	const bool *stack_on;		/* the run's; NULL: no stacks */
	struct vg_allocs *allocs;	/* the spec's allocator events */
	struct vg_addrmap *blocks;	/* struct block by address */
	/* the program's own allocator's (`$alloc`), which may lie inside
	 * a block of blocks (its slab): named first; made at the first */
	struct vg_addrmap *pools;
	struct vg_symbolizer *sym;	/* its own: globals by address */
	bool maps_read;		/* since the program's start (its exec) */
};

/* A block freed; a heap block's pool blocks go with it */
static void forget(struct vg_symval *sv, uint64_t addr, bool pool)
{
	const struct block *b;
	uint64_t end, key;

	if (pool) {
		if (sv->pools)
			vg_addrmap_del(sv->pools, addr);
		return;
	}
	b = vg_addrmap_get(sv->blocks, addr);
	end = b && b->size ? addr + b->size : addr + 1;
	vg_addrmap_del(sv->blocks, addr);
	while (sv->pools && vg_addrmap_floor(sv->pools, end - 1, &key) &&
	       key >= addr)
		vg_addrmap_del(sv->pools, key);
}

/* (a full table keeps what it has: a block it could not take goes
 * unnamed) */
static void remember(struct vg_symval *sv, const struct block *b, bool pool)
{
	if (pool && !sv->pools &&
	    !(sv->pools = vg_addrmap_new(MAX_BLOCKS, sizeof(struct block))))
		return;
	vg_addrmap_put(pool ? sv->pools : sv->blocks, b->addr, b);
}

/* The block at or below v in map, if v is in it (or is it, size
 * unknown) */
static const struct block *holding(const struct vg_addrmap *map, uint64_t v)
{
	const struct block *b = map ? vg_addrmap_floor(map, v, NULL) : NULL;

	if (b && v != b->addr && v >= b->addr + b->size)
		return NULL;
	return b;
}

/* the target's pid now (a restore replaces the process); <= 0: none */
static pid_t pid_of(const struct vg_symval *sv)
{
	return vg_run_pid(sv->run);
}

int vg_symval_prepare(struct vg_spec *spec, bool watch, bool live,
		      struct vg_err *e)
{
	struct vg_event *evs;

	/* vigil watch: every process of a binary, a stop at each one's
	 * start for names its reports may never ask. A live session: gdb
	 * learns of shared libraries by its own breakpoint there (Debian's
	 * loader has no SDT probes for it), which a uprobe at the same
	 * address would swallow, and whose removal could write the probe's
	 * int3 back as the instruction (scripts/gdb/vigil.py keeps the
	 * user's breakpoints off probed addresses, not gdb's own). Both
	 * name libraries' globals from mappings read late, as before. */
	if (watch || live)
		return 0;
	/* a spec that probes it already keeps its own event */
	for (int i = 0; i < spec->nevents; i++)
		if (spec->events[i].kind == VG_EV_BEFORE &&
		    !strcmp(spec->events[i].name, RENDEZVOUS))
			return 0;
	if (spec->nevents + 1 > VG_MAX_EVENTS)
		return 0;	/* the names as before: the maps read late */
	evs = realloc(spec->events, (size_t)(spec->nevents + 1) * sizeof(*evs));
	if (!evs)
		return vg_errf(e, "out of memory");
	spec->events = evs;
	evs[spec->nevents] = (struct vg_event){ .kind = VG_EV_BEFORE,
						.maps_sync = true };
	if (!(evs[spec->nevents].name = strdup(RENDEZVOUS)))
		return vg_errf(e, "out of memory");
	spec->nevents++;
	return 0;
}

struct vg_symval *vg_symval_new(struct vg_run *run, const struct vg_spec *spec,
				const bool *stack_on, bool attached)
{
	struct vg_symval *sv = calloc(1, sizeof(*sv));
	bool any = false;

	if (!sv)
		return NULL;
	sv->run = run;
	sv->spec = spec;
	sv->stack_on = stack_on;
	if (!(sv->allocs = vg_allocs_new(spec))) {
		vg_symval_free(sv);
		return NULL;
	}
	any = vg_allocs_any(sv->allocs);
	if (any && !(sv->blocks = vg_addrmap_new(MAX_BLOCKS,
						  sizeof(struct block)))) {
		vg_symval_free(sv);
		return NULL;
	}
	/* a process vigil attaches to runs already: its mappings now,
	 * while it surely is there (the program's file among them) */
	if (attached && (sv->sym = vg_symbolizer_new(pid_of(sv))))
		vg_symbolizer_take(sv->sym);	/* its files held too */
	vg_report_set_namer(vg_symval_name, sv);
	return sv;
}

void vg_symval_exec(struct vg_symval *sv, const char *path,
		    uint64_t start_code, uint64_t interp_base)
{
	if (!sv || pid_of(sv) <= 0)
		return;
	/* a new program: the old one's mappings are no more */
	vg_symbolizer_free(sv->sym);
	if (!(sv->sym = vg_symbolizer_new(pid_of(sv))))
		return;
	vg_symbolizer_add_file(sv->sym, path);
	vg_symbolizer_add_program(sv->sym, path, start_code, interp_base);
	sv->maps_read = false;
}

void vg_symval_free(struct vg_symval *sv)
{
	if (!sv)
		return;
	vg_report_set_namer(NULL, NULL);
	vg_symbolizer_free(sv->sym);
	vg_addrmap_free(sv->blocks);
	vg_addrmap_free(sv->pools);
	vg_allocs_free(sv->allocs);
	free(sv);
}

void vg_symval_event(struct vg_symval *sv, const struct vg_mon_event *ev)
{
	struct vg_alloc a;
	struct block b;

	if (!sv || ev->event < 0)
		return;
	/* The loader's rendezvous: the process is held in its probe (the
	 * session lets it go once the drain is done), with the objects it
	 * just mapped in place: their mappings now, and their files held */
	if (sv->spec->events[ev->event].maps_sync) {
		if (pid_of(sv) <= 0 || (pid_t)ev->pid != pid_of(sv))
			return;
		if (!sv->sym && !(sv->sym = vg_symbolizer_new(pid_of(sv))))
			return;
		vg_symbolizer_take(sv->sym);
		vg_symbolizer_add_file(sv->sym, vg_symval_host_exe(sv->run));
		sv->maps_read = true;	/* exactly: no late look needed */
		return;
	}
	/* Without a rendezvous seen (no loader probed: a static program,
	 * vigil watch), the libraries' mappings at the first event: the
	 * target may be gone already (vigil reads events after the fact),
	 * so the program's own come from its exec (vg_symval_exec), and
	 * these are added only if it is still there to read them. */
	if (!sv->maps_read && pid_of(sv) > 0) {
		sv->maps_read = true;
		if (sv->sym)
			vg_symbolizer_refresh(sv->sym);
		else
			sv->sym = vg_symbolizer_new(pid_of(sv));
		vg_symbolizer_add_file(sv->sym, vg_symval_host_exe(sv->run));
	}
	if (!sv->blocks)
		return;
	switch (vg_alloc_of(sv->allocs, ev, &a)) {
	case VG_ALLOC_FREE:
		forget(sv, a.addr, a.pool);
		return;
	case VG_ALLOC_NONE:
		return;
	case VG_ALLOC_NEW:
		break;
	}
	if (a.old)
		forget(sv, a.old, false);
	if (!a.addr)
		return;		/* failed */
	b.addr = a.addr;
	b.size = a.size;	/* 0: not known */
	b.event = ev->event;
	b.stack = sv->stack_on && sv->stack_on[ev->event]
		  ? (int64_t)ev->slot[VG_SLOT_STACK] : -1;
	/* An object map the probes keep files it already, and names it
	 * as this would (its length, its allocator: agent_block), unless
	 * its stack names the caller. Filing it here too was a twelfth of
	 * vigil's time under the memory specs. */
	if (b.stack < 0 &&
	    vg_probe_files_blocks(vg_run_probe(sv->run), ev->event))
		return;
	remember(sv, &b, a.pool);
}

/* "make_node at list.c:12" (the caller, from the stack), else "malloc" */
static void site(struct vg_symval *sv, const struct block *b, char *buf,
		 size_t len)
{
	struct vg_probe *probe = vg_run_probe(sv->run);
	struct vg_stack_frame fr[1];
	struct vg_frame f;

	snprintf(buf, len, "%s", sv->spec->events[b->event].name);
	if (b->stack < 0 || !probe || !sv->sym ||
	    vg_probe_stack(probe, b->stack, fr, 1) < 1)
		return;
	if (fr[0].has_build_id)
		vg_symbolize_file(sv->sym, fr[0].build_id, fr[0].offset, true,
				  &f);
	else
		vg_symbolize(sv->sym, fr[0].offset, true, &f);
	if (!f.func[0])
		return;
	if (f.line) {
		const char *slash = strrchr(f.file, '/');

		snprintf(buf, len, "%s at %s:%d", f.func,
			 slash ? slash + 1 : f.file, f.line);
	} else {
		snprintf(buf, len, "%s", f.func);
	}
}

/* A global or static: as an address, "&A", "&A+8"; as an object,
 * "global table[64]", "static buf[32] in file.c, +4" (its size in
 * brackets, the offset when not at its start) */
static void name_global(const struct vg_data_sym *d, bool object, char *buf,
			size_t len)
{
	char name[640], at[32] = "", in[300] = "";

	/* a C++ global as its source says it: main::buf */
	vg_demangle_into(d->name, name, sizeof(name));
	if (!object) {
		if (d->off)
			snprintf(at, sizeof(at), "+%llu",
				 (unsigned long long)d->off);
		snprintf(buf, len, "&%s%s", name, at);
		return;
	}
	if (d->off)
		snprintf(at, sizeof(at), ", +%llu", (unsigned long long)d->off);
	if (d->local && d->file[0]) {
		const char *slash = strrchr(d->file, '/');

		snprintf(in, sizeof(in), " in %s", slash ? slash + 1 : d->file);
	}
	snprintf(buf, len, "%s %s[%llu]%s%s", d->local ? "static" : "global",
		 name, (unsigned long long)d->size, in, at);
}

/* A block the in-process agent filed (its object map, for a kernel-tier
 * property it steps: plan_memfast.c), whose allocation never reached
 * vigil as a record: named by its allocator's event (no stack there) */
static bool agent_block(struct vg_symval *sv, uint64_t v, char *buf,
			size_t len)
{
	struct vg_probe_block b;

	if (!vg_probe_block(vg_run_probe(sv->run), v, &b) || b.event < 0 ||
	    b.event >= sv->spec->nevents)
		return false;
	snprintf(buf, len, "block of %llu bytes from %s, +%llu",
		 (unsigned long long)b.len, sv->spec->events[b.event].name,
		 (unsigned long long)(v - b.base));
	return true;
}

bool vg_symval_name(void *ctx, uint64_t v, bool object, char *buf,
		    size_t len)
{
	struct vg_symval *sv = ctx;
	const struct block *best = NULL;
	struct vg_data_sym d;
	char name[640];

	if (!sv || v < 4096)
		return false;
	if (!sv->sym && pid_of(sv) > 0 &&
	    (sv->sym = vg_symbolizer_new(pid_of(sv))))
		vg_symbolizer_add_file(sv->sym, vg_symval_host_exe(sv->run));
	if (sv->sym && vg_symbolize_global(sv->sym, v, &d)) {
		name_global(&d, object, buf, len);
		return true;
	}
	/* the innermost block holding v: a pool block, else the heap's */
	if (!(best = holding(sv->pools, v)))
		best = holding(sv->blocks, v);
	if (!best)
		return agent_block(sv, v, buf, len);
	site(sv, best, name, sizeof(name));
	if (best->size)
		snprintf(buf, len, "block of %llu bytes from %s, +%llu",
			 (unsigned long long)best->size, name,
			 (unsigned long long)(v - best->addr));
	else
		snprintf(buf, len, "block from %s, +%llu", name,
			 (unsigned long long)(v - best->addr));
	return true;
}
