/* Putting the in-process tier into the target and taking it out
 * (fast_internal.h). The order matters, for "never harm":
 *
 *   1. every thread stopped (ptrace), none inside what will change;
 *   2. the agent, the region and the stubs mapped and written, the
 *      region filled, `enabled` still 0;
 *   3. each function's first instructions relocated next to a stub
 *      (reloc.c): a function that cannot be relocated safely is refused
 *      here too, and the run refused with it, since the plan gave it no
 *      uprobe (lint --fast says which in advance);
 *   4. the patches written, all at once, while no thread's pc lies
 *      inside one; then `enabled`, then the threads go.
 *
 * Any failure before 4 unmaps nothing the target could reach: it never
 * jumped there. Taking it out is 1 and the original bytes; the mappings
 * stay, since a thread may still be inside a stub or owe a return to one.
 */
#include "fast_internal.h"
#include "fast_run.h"

#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fast/agent_blob.h"
#include "fast/inject.h"
#include "reloc/reloc.h"
#include "fast/tramp.h"
#include "plan/plan.h"
#include "probe/probe.h"
#include "proc/proc.h"
#include "sym/maps.h"
#include "vigil_fast.h"

int vg_fast_nhooks(const struct vg_fast_run *f)
{
	return f ? f->nhooks : 0;
}

uint64_t vg_fast_waited(const struct vg_fast_run *f, uint64_t *ns)
{
	*ns = f && f->sh ? __atomic_load_n(&f->sh->cnt[VG_FCNT_WAITED_NS],
					   __ATOMIC_RELAXED) : 0;
	return f && f->sh ? __atomic_load_n(&f->sh->cnt[VG_FCNT_WAITED],
					    __ATOMIC_RELAXED) : 0;
}

pid_t vg_fast_pid(const struct vg_fast_run *f)
{
	return f->pid;
}

uint64_t vg_fast_remote(const struct vg_fast_run *f)
{
	return f->remote;
}

uint64_t vg_fast_agent(const struct vg_fast_run *f, uint64_t *len)
{
	*len = vg_agent_blob_len;
	return f->agent;
}

struct vg_fast_shared *vg_fast_region(struct vg_fast_run *f)
{
	return f->sh;
}

int vg_fast_stopped_hook(const struct vg_fast_run *f, uint64_t pc,
			 uint64_t *fn)
{
	for (int i = 0; i < f->nhooks; i++)
		if (pc == f->hooks[i].entry + VG_TRAMP_STOPPED) {
			*fn = f->hooks[i].fn;
			return i;
		}
	return -1;
}

int vg_fast_hook_view(const struct vg_fast_run *f, int i,
		      struct vg_fast_hook_view *v)
{
	const struct hook *k;

	if (!f || i < 0 || i >= f->nhooks)
		return -1;
	k = &f->hooks[i];
	v->name = k->name;
	v->path = k->path;
	v->off = k->off;
	v->fn = k->fn;
	v->patch_len = k->r.patch_len;
	memcpy(v->orig, k->r.orig, sizeof(v->orig));
	v->entry = k->entry;
	v->stopped = k->entry + VG_TRAMP_STOPPED;
	v->reloc = k->h.reloc;
	v->ret_stub = k->h.ret_stub;
	v->nret = k->h.nret;
	return 0;
}

/* The plan's in-process sites, one hook per function */
static int collect(struct vg_fast_run *f, const struct vg_plan *plan,
		   struct vg_err *e)
{
	for (int i = 0; i < plan->nsites; i++) {
		const struct vg_plan_site *u = &plan->sites[i];
		struct hook *k = NULL;

		if (!u->fast)
			continue;
		for (int j = 0; j < f->nhooks && !k; j++)
			if (f->hooks[j].off == u->patch &&
			    !strcmp(f->hooks[j].path, u->path))
				k = &f->hooks[j];
		if (u->prog == VG_PROG_STASH)	/* below */
			continue;
		if (!k) {
			if (f->nhooks == VG_FAST_MAX_HOOKS)
				return vg_errf(e, "the in-process tier takes at most %d functions (--no-fast, or fewer names in --fast)",
					       VG_FAST_MAX_HOOKS);
			k = &f->hooks[f->nhooks++];
			if (!(k->path = strdup(u->path)))
				return vg_errf(e, "out of memory");
			snprintf(k->name, sizeof(k->name), "%.63s", u->sym);
			/* the patch may be past the function's first
			 * instructions (plan_fast.c, moved_entry): the hook
			 * starts there */
			k->off = u->patch;
			k->size = u->size > u->patch - u->func
					  ? u->size - (u->patch - u->func) : 0;
		}
		if (u->retprobe) {
			if (k->h.nret == VG_FAST_HOOK_EVENTS)
				return vg_errf(e, "%s: more than %d return events on one function",
					       u->sym, VG_FAST_HOOK_EVENTS);
			k->h.ret_ev[k->h.nret++] = (uint16_t)u->event;
		} else {
			if (k->h.nentry == VG_FAST_HOOK_EVENTS)
				return vg_errf(e, "%s: more than %d entry events on one function",
					       u->sym, VG_FAST_HOOK_EVENTS);
			k->h.entry_ev[k->h.nentry++] = (uint16_t)u->event;
		}
	}
	/* an `after` event with fields has its entry half (the BPF stash):
	 * the agent saves the arguments then */
	for (int i = 0; i < plan->nsites; i++)
		for (int j = 0; plan->sites[i].fast &&
				plan->sites[i].prog == VG_PROG_STASH &&
				j < f->nhooks; j++)
			if (f->hooks[j].off == plan->sites[i].patch &&
			    !strcmp(f->hooks[j].path, plan->sites[i].path))
				f->hooks[j].h.ret_args = 1;
	return 0;
}

/* Where each function is in the target: its file's mapping in
 * /proc/pid/maps, matched by device and inode, or by its path (on an
 * overlay, maps shows the lower file's device, stat the overlay's); and
 * the main thread's stack, which the agent reads without a system call */
static int locate(struct vg_fast_run *f, struct vg_err *e)
{
	struct vg_maps m;
	int rc = 0;

	if (vg_maps_read(f->pid, &m, e))
		return -1;
	for (int i = 0; i < f->nhooks && !rc; i++) {
		struct hook *k = &f->hooks[i];
		char real[PATH_MAX];
		struct stat st;

		if (stat(k->path, &st)) {
			rc = vg_errf(e, "%s: %s", k->path, strerror(errno));
			break;
		}
		if (!realpath(k->path, real))
			snprintf(real, sizeof(real), "%s", k->path);
		for (size_t j = 0; j < m.n && !k->fn; j++) {
			const struct vg_map *mp = &m.v[j];
			bool same = (mp->ino == st.st_ino && mp->dev == st.st_dev) ||
				    (mp->path && !strcmp(mp->path, real));

			if (!same || k->off < mp->offset ||
			    k->off >= mp->offset + (mp->end - mp->start))
				continue;
			k->fn = mp->start + (k->off - mp->offset);
			k->text_lo = mp->start;
			k->text_hi = mp->end;
		}
		if (!k->fn)
			rc = vg_errf(e, "%s+0x%" PRIx64 " is not mapped in pid %d: the in-process tier patches only what the process has loaded (--no-fast)",
				     k->path, k->off, f->pid);
	}
	for (size_t j = 0; j < m.n; j++)
		if (m.v[j].path && !strcmp(m.v[j].path, "[stack]")) {
			f->stack_lo = m.v[j].start;
			f->stack_hi = m.v[j].end;
		}
	vg_maps_free(&m);
	return rc;
}

/* One area per file, near its first function */
static int plan_areas(struct vg_fast_run *f, struct vg_err *e)
{
	for (int i = 0; i < f->nhooks; i++) {
		struct hook *k = &f->hooks[i];
		int a = 0;

		while (a < f->nareas && strcmp(f->areas[a].path, k->path))
			a++;
		if (a == f->nareas) {
			if (f->nareas == MAX_AREAS)
				return vg_errf(e, "patched functions in more than %d files",
					       MAX_AREAS);
			f->areas[a].path = k->path;
			f->areas[a].near = k->fn;
			f->nareas++;
		}
		k->area = a;
		f->areas[a].len += HOOK_BYTES;
	}
	for (int a = 0; a < f->nareas; a++) {
		struct area *ar = &f->areas[a];

		ar->len = (ar->len + 4095) & ~(size_t)4095;
		if (!(ar->buf = calloc(1, ar->len)))
			return vg_errf(e, "out of memory");
		memset(ar->buf, 0xcc, ar->len);	/* int3 between stubs */
	}
	return 0;
}

/* The region's layout: header, the owner's mutex, the event table, the
 * kernel tier's tables, the ring (the threads have a mapping of their
 * own: threads()) */
struct layout {
	size_t owner, evconf, kprops, ktrans, kcode, ring, objmap, len;
};

static size_t up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* om: the object map's bytes (fast_objmap.c), after the ring */
static void lay_out(struct layout *l, size_t om)
{
	size_t at = up(sizeof(struct vg_fast_shared), 64);

	l->owner = at;
	at = up(at + sizeof(pthread_mutex_t), 64);
	l->evconf = at;
	at = up(at + VG_MAX_EVENTS * sizeof(struct vg_ev_conf), 64);
	l->kprops = at;
	at = up(at + VG_KMAX_PROPS * sizeof(struct vg_kprop), 64);
	l->ktrans = at;
	at = up(at + VG_KMAX_PROPS * VG_KMAX_STATES * VG_KMAX_BINDINGS *
			     sizeof(struct vg_ktrans), 64);
	l->kcode = at;
	at = up(at + VG_KMAX_CODE * sizeof(struct vg_insn), 4096);
	l->ring = at;
	l->objmap = om ? at + RING_BYTES : 0;
	l->len = at + RING_BYTES + om;
}

/* The tables a put-back copies from the region before (all but the
 * ring: the event table and the kernel tier's); into the same process
 * (keep_counts), its counts and rewound calls too */
static void copy_tables(struct vg_fast_shared *sh,
			const struct vg_fast_shared *old, const struct layout *l,
			bool keep_counts)
{
	memcpy((char *)sh + l->evconf, (const char *)old + l->evconf,
	       l->ring - l->evconf);
	sh->nkprops = old->nkprops;
	/* vigil's watchset goes on across a checkpoint or a restore: the
	 * addresses it armed, and the releases it has counted */
	sh->release_seq = old->release_seq;
	sh->futile_at = old->futile_at;
	sh->narmed = old->narmed;
	memcpy(sh->armed, old->armed, sizeof(sh->armed));
	vg_fast_objmap_copy(sh, l->objmap, old);
	if (!keep_counts)
		return;
	memcpy(sh->cnt, old->cnt, sizeof(sh->cnt));
	memcpy(sh->ev_hits, old->ev_hits, sizeof(sh->ev_hits));
	memcpy(sh->ev_lost, old->ev_lost, sizeof(sh->ev_lost));
	/* the same process: a thread put back on a call (a stop) before
	 * the checkpoint goes on with it after, not with a new one */
	memcpy(sh->rewound, old->rewound, sizeof(sh->rewound));
	sh->nrewound = old->nrewound;
}

/* The tables the agent reads, from the plan (or, plan NULL, from the
 * region of an earlier install: copy_tables) */
static int fill(struct vg_fast_run *f, const struct vg_plan *plan,
		const struct layout *l, struct vg_err *e)
{
	struct vg_fast_shared *sh = f->sh;
	char *base = (char *)sh;
	struct vg_ev_conf *conf = (void *)(base + l->evconf);
	pthread_mutexattr_t ma;

	sh->magic = VG_FAST_MAGIC;
	sh->version = VG_FAST_VERSION;
	sh->tgid = (uint32_t)f->pid;
	sh->owner_off = (uint32_t)l->owner;
	sh->evconf_off = l->evconf;
	sh->kprops_off = l->kprops;
	sh->ktrans_off = l->ktrans;
	sh->kcode_off = l->kcode;
	sh->ring_off = l->ring;
	sh->ring_size = RING_BYTES;
	sh->stack_lo = f->stack_lo;
	sh->stack_hi = f->stack_hi;
	if (plan)	/* holds not futile until vigil says so */
		sh->futile_at = ~0ull;
	sh->clock_gettime = vg_fast_vdso_clock_gettime(f->pid);
	if (!sh->clock_gettime)
		return vg_errf(e, "the target's vDSO has no clock_gettime: the in-process tier needs it for the events' times (--no-fast)");
	for (int i = 0; plan && i < plan->nevents && i < VG_MAX_EVENTS; i++)
		conf[i] = plan->events[i].conf;
	if (plan && plan->kt.ncode > VG_KMAX_CODE)
		return vg_errf(e, "the kernel tier's code does not fit");
	if (plan) {
		sh->nkprops = (uint32_t)plan->kt.nkprops;
		vg_ktier_fill(&plan->kt, (struct vg_kprop *)(base + l->kprops),
			      (struct vg_ktrans *)(base + l->ktrans),
			      (struct vg_insn *)(base + l->kcode));
	}
	/* vigil's liveness (vigil_fast.h): held by this thread, which runs
	 * the session to its end */
	if (pthread_mutexattr_init(&ma) ||
	    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED) ||
	    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST) ||
	    pthread_mutex_init((pthread_mutex_t *)(base + l->owner), &ma) ||
	    pthread_mutex_lock((pthread_mutex_t *)(base + l->owner)))
		return vg_errf(e, "the in-process tier's liveness mutex: %s",
			       strerror(errno));
	pthread_mutexattr_destroy(&ma);
	return 0;
}

/* The agent's per-thread table (vigil_fast.h): private, so that a forked
 * child has its own copy of the return frames it inherits, its first page
 * wiped in a child, which then reads tgid 0 and records nothing */
#define THREADS 1024
static int threads(struct vg_fast_run *f, struct vg_inject *in,
		   struct vg_err *e)
{
	size_t len = up(VG_FAST_THREADS_HDR +
			THREADS * sizeof(struct vg_fast_thread), 4096);
	struct vg_fast_threads_hdr h = { .tgid = (uint32_t)f->pid };
	uint64_t at;
	long r;

	if (vg_inject_mmap_near(in, 0, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, &at, e) ||
	    vg_inject_syscall(in, &r, SYS_madvise, (long)at,
			      VG_FAST_THREADS_HDR, MADV_WIPEONFORK, 0, 0, 0, e))
		return -1;
	if (r)
		return vg_errf(e, "madvise(MADV_WIPEONFORK) in the target: %s",
			       strerror((int)-r));
	if (vg_inject_write(in, at, &h, sizeof(h), e))
		return -1;
	/* named, for the leak check (and a reader of /proc/pid/maps): a
	 * kernel without CONFIG_ANON_VMA_NAME says EINVAL, and it stays
	 * unnamed */
	snprintf(f->sh->name, sizeof(f->sh->name), "vigil-fast");
	if (vg_inject_syscall(in, &r, SYS_prctl, PR_SET_VMA,
			      PR_SET_VMA_ANON_NAME, (long)at, (long)len,
			      (long)(f->remote + offsetof(struct vg_fast_shared,
							  name)), 0, e))
		return -1;
	/* an offset from the region, wrapping if the table is below it */
	f->sh->threads_off = at - f->remote;
	f->sh->threads_size = len;
	return 0;
}

/* The kernel tier's slice table (and the global counting its slices)
 * mapped into the target: the BPF maps' fds taken over by the target
 * (pidfd_getfd) and mapped shared there */
static int share_kslots(struct vg_fast_run *f, struct vg_inject *in,
			struct vg_err *e)
{
	struct vg_probe_kshare k;
	long pidfd, fd, addr;
	uint64_t at[2] = { 0, 0 };
	size_t len[2];
	int fds[2];

	if (vg_probe_kslot_share(f->probe, &k))
		return vg_errf(e, "the kernel tier's slice table is not mapped");
	fds[0] = k.kslots_fd;
	fds[1] = k.bss_fd;
	len[0] = k.kslots_len;
	len[1] = up(k.bss_len, 4096);
	if (vg_inject_syscall(in, &pidfd, SYS_pidfd_open, getpid(), 0, 0, 0,
			      0, 0, e))
		return -1;
	if (pidfd < 0)
		return vg_errf(e, "pidfd_open in the target: %s", strerror((int)-pidfd));
	for (int i = 0; i < 2; i++) {
		if (vg_inject_syscall(in, &fd, SYS_pidfd_getfd, pidfd, fds[i],
				      0, 0, 0, 0, e))
			return -1;
		if (fd < 0)
			return vg_errf(e, "pidfd_getfd in the target: %s (it needs to be allowed to ptrace vigil: CAP_SYS_PTRACE)",
				       strerror((int)-fd));
		if (vg_inject_syscall(in, &addr, SYS_mmap, 0, (long)len[i],
				      PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0,
				      e))
			return -1;
		vg_inject_syscall(in, &fd, SYS_close, fd, 0, 0, 0, 0, 0, e);
		if (addr < 0 && addr > -4096)
			return vg_errf(e, "mapping the kernel tier's table into the target: %s",
				       strerror((int)-addr));
		at[i] = (uint64_t)addr;
		/* for a checkpoint, which takes them out (fast_ckpt.c) */
		f->kmap[i] = at[i];
		f->kmap_len[i] = len[i];
	}
	vg_inject_syscall(in, &fd, SYS_close, pidfd, 0, 0, 0, 0, 0, e);
	f->sh->kslots_addr = at[0];
	f->sh->kslot_count_addr = at[1] + k.count_off;
	f->sh->kslot_mask = k.mask;
	f->sh->kslot_max = k.max;
	return 0;
}

static bool any_kernel_hook(const struct vg_fast_run *f,
			    const struct vg_plan *plan)
{
	for (int i = 0; i < f->nhooks; i++) {
		const struct vg_fast_hook *h = &f->hooks[i].h;

		for (int j = 0; j < h->nentry; j++)
			if (plan->events[h->entry_ev[j]].conf.nkprops)
				return true;
		for (int j = 0; j < h->nret; j++)
			if (plan->events[h->ret_ev[j]].conf.nkprops)
				return true;
	}
	return false;
}

/* Map the agent and the areas, RW while written, then read+execute */
static int map_code(struct vg_fast_run *f, struct vg_inject *in,
		    struct vg_err *e)
{
	size_t alen = up(vg_agent_blob_len, 4096);

	if (vg_inject_mmap_near(in, f->areas[0].near, alen,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, &f->agent, e))
		return -1;
	f->agent_len = alen;
	for (int a = 0; a < f->nareas; a++)
		if (vg_inject_mmap_near(in, f->areas[a].near, f->areas[a].len,
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1,
					&f->areas[a].addr, e))
			return -1;
	return 0;
}

static int protect(struct vg_inject *in, uint64_t addr, size_t len,
		   struct vg_err *e)
{
	long r;

	if (vg_inject_syscall(in, &r, SYS_mprotect, (long)addr, (long)len,
			      PROT_READ | PROT_EXEC, 0, 0, 0, e))
		return -1;
	if (r)
		return vg_errf(e, "mprotect in the target: %s", strerror((int)-r));
	return 0;
}

static int write_code(struct vg_fast_run *f, struct vg_inject *in,
		      struct vg_err *e)
{
	uint8_t *blob = malloc(up(vg_agent_blob_len, 8));

	if (!blob)
		return vg_errf(e, "out of memory");
	memcpy(blob, vg_agent_blob, vg_agent_blob_len);
	((struct vg_agent_head *)blob)->region = f->remote;
	if (vg_inject_write(in, f->agent, blob, vg_agent_blob_len, e)) {
		free(blob);
		return -1;
	}
	free(blob);
	if (protect(in, f->agent, up(vg_agent_blob_len, 4096), e))
		return -1;
	for (int a = 0; a < f->nareas; a++)
		if (vg_inject_write(in, f->areas[a].addr, f->areas[a].buf,
				    f->areas[a].len, e) ||
		    protect(in, f->areas[a].addr, f->areas[a].len, e))
			return -1;
	return 0;
}

/* A thread at an instruction the patch covers goes on at its relocated
 * copy (vg_inject_set_mover): the rest of the copied instructions, then
 * the jump back past the patch */
static uint64_t moved(void *ctx, uint64_t pc)
{
	const struct vg_fast_run *f = ctx;

	for (int i = 0; i < f->nhooks; i++) {
		const struct hook *k = &f->hooks[i];

		if (pc > k->fn && pc < k->fn + k->r.patch_len &&
		    k->r.at_of[pc - k->fn])
			return k->h.reloc + k->r.at_of[pc - k->fn] - 1;
	}
	return 0;
}

int vg_fast_patch(struct vg_fast_run *f, struct vg_inject *in, bool out,
		  struct vg_err *e)
{
	uint64_t addr[VG_FAST_MAX_HOOKS];
	const uint8_t *bytes[VG_FAST_MAX_HOOKS];
	uint32_t len[VG_FAST_MAX_HOOKS];

	for (int i = 0; i < f->nhooks; i++) {
		addr[i] = f->hooks[i].fn;
		bytes[i] = out ? f->hooks[i].r.orig : f->hooks[i].r.patch;
		len[i] = f->hooks[i].r.patch_len;
	}
	vg_inject_set_mover(in, out ? NULL : moved, f);
	return vg_inject_patch(in, addr, bytes, len, f->nhooks, 0, 0, e);
}

/* What an install found and built in the target, forgotten before
 * another (a put-back after a checkpoint): the hooks keep what the plan
 * gave them */
static void forget(struct vg_fast_run *f)
{
	for (int a = 0; a < f->nareas; a++) {
		free(f->areas[a].buf);
		free(f->areas[a].jumps);
	}
	memset(f->areas, 0, sizeof(f->areas));
	f->nareas = 0;
	for (int i = 0; i < f->nhooks; i++) {
		struct hook *k = &f->hooks[i];

		k->fn = k->text_lo = k->text_hi = k->entry = 0;
		k->area = 0;
		memset(&k->r, 0, sizeof(k->r));
		k->h.fn = k->h.reloc = k->h.ret_stub = k->h.hits = 0;
		k->h.patch_len = 0;
		memset(k->h.orig, 0, sizeof(k->h.orig));
		memset(k->h.patch, 0, sizeof(k->h.patch));
	}
	f->agent = f->agent_len = 0;
	f->kmap[0] = f->kmap[1] = 0;
	f->kmap_len[0] = f->kmap_len[1] = 0;
	f->remote = 0;
}

int vg_fast_put_in(struct vg_fast_run *f, bool launching,
		   const struct vg_plan *plan, const struct vg_fast_shared *old,
		   bool keep_counts, struct vg_err *e)
{
	struct vg_fast_shared *was = f->sh;
	size_t was_len = f->len;
	struct vg_inject *in = NULL;
	struct layout l = { 0 };
	uint32_t tid_off;
	void *local = NULL;
	int rc = -1;

	forget(f);
	if (launching ? vg_inject_run_to_entry(f->pid, &in, e)
		      : vg_inject_seize(f->pid, &in, e))
		goto out;
	lay_out(&l, plan ? vg_fast_objmap_bytes(plan, f->pid)
			 : old ? old->objmap_size : 0);
	if (locate(f, e) || plan_areas(f, e) || map_code(f, in, e) ||
	    vg_inject_shared(in, l.len, &f->remote, &local, e))
		goto out;
	f->sh = local;
	f->len = l.len;
	if (vg_inject_tid_offset(in, &tid_off, e))
		goto out;
	f->sh->tid_off = tid_off;
	if (old)
		copy_tables(f->sh, old, &l, keep_counts);
	for (int i = 0; old && keep_counts && i < f->nhooks; i++)
		f->hooks[i].h.hits = old->hooks[i].hits;
	if (fill(f, plan, &l, e) || (plan && l.objmap &&
	    vg_fast_objmap_fill(f, plan, &l.objmap, l.len, launching, e)) ||
	    threads(f, in, e) ||
	    (f->kernel && share_kslots(f, in, e)) ||
	    vg_fast_build_hooks(f, in, e) || write_code(f, in, e) ||
	    vg_fast_patch(f, in, false, e))
		goto out;
	f->patched = true;
	if (plan)
		f->inside = plan->fast_inside;
	vg_probe_fast_inside(f->probe, f->remote + f->sh->threads_off +
			     VG_FAST_THREADS_HDR,
			     (uint32_t)vg_fast_nthreads(f->sh->threads_size) - 1,
			     f->inside);
	vg_probe_fast_released(f->probe, f->remote +
			       offsetof(struct vg_fast_shared, released));
	f->sh->follow = f->follow;
	f->sh->seccomp = vg_fast_any_seccomp(f->pid);
	f->out = false;
	f->born = vg_proc_stat_u64(f->pid, 22);	/* its start time */
	__atomic_store_n(&f->sh->enabled, 1, __ATOMIC_RELEASE);
	/* vigil run's child stays at its entry, in a group stop, for the
	 * session to let it go (vg_proc_release) */
	if (launching)
		kill(f->pid, SIGSTOP);
	vg_inject_release(in);
	in = NULL;
	vg_fast_source_set(f);
	vg_fast_wake_start(f);
	rc = 0;
out:
	if (in) {
		if (launching)
			kill(f->pid, SIGSTOP);
		vg_inject_release(in);
	}
	for (int a = 0; a < f->nareas; a++) {
		free(f->areas[a].jumps);
		f->areas[a].jumps = NULL;
	}
	if (rc) {
		if (local) {
			/* its mutex, when fill got that far, is held */
			if (f->sh == local && f->sh->owner_off)
				vg_fast_region_free(local, l.len);
			else
				munmap(local, l.len);
		}
		f->sh = was;
		f->len = was_len;
	}
	return rc;
}

static void free_run(struct vg_fast_run *f)
{
	for (int a = 0; a < f->nareas; a++) {
		free(f->areas[a].buf);
		free(f->areas[a].jumps);
	}
	for (int i = 0; i < f->nhooks; i++)
		free(f->hooks[i].path);
	free(f);
}

int vg_fast_install(pid_t pid, bool launching, bool follow,
		    const struct vg_plan *plan,
		    struct vg_probe *probe, struct vg_fast_run **out,
		    struct vg_err *e)
{
	struct vg_fast_run *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return vg_errf(e, "out of memory");
	f->pid = pid;
	f->follow = follow;
	f->probe = probe;
	if (collect(f, plan, e))
		goto fail;
	f->kernel = any_kernel_hook(f, plan);
	if (vg_fast_put_in(f, launching, plan, NULL, false, e))
		goto fail;
	*out = f;
	return 0;
fail:
	free_run(f);
	return -1;
}

void vg_fast_region_free(struct vg_fast_shared *sh, size_t len)
{
	/* unlocked: the agent sees no owner, as if vigil were gone */
	pthread_mutex_unlock((pthread_mutex_t *)((char *)sh + sh->owner_off));
	munmap(sh, len);
}

void vg_fast_uninstall(struct vg_fast_run *f, bool target_gone)
{
	struct vg_inject *in;
	struct vg_err e = { 0 };

	if (!f)
		return;
	if (f->sh) {
		__atomic_store_n(&f->sh->enabled, 0, __ATOMIC_RELEASE);
		vg_fast_holds_done(f->sh, f->sh->head);	/* nothing to wait for */
	}
	/* taken out for a checkpoint and not put back, or a restore made
	 * another process of its pid (the session's last one, handed to
	 * the user): nothing to take */
	if (!target_gone && vg_proc_stat_u64(f->pid, 22) != f->born)
		target_gone = true;
	if (!getenv("VG_DBG_NOUNPATCH") && !target_gone && f->patched &&
	    !f->out) {
		/* (a live gdb session's gdb traces it: no seize) */
		if (vg_inject_seize(f->pid, &in, &e))
			in = NULL;
		if ((!in && !kill(f->pid, 0)) || (in && vg_fast_patch(f, in, true, &e)))
			fprintf(stderr, "vigil: taking the in-process tier's patches out of pid %d: %s (they stay: the functions keep working, unrecorded)\n",
				f->pid, e.msg);
		if (in)
			vg_inject_release(in);
	}
	/* its records are not read any more */
	vg_probe_set_source(f->probe, &(struct vg_probe_source){ 0 });
	vg_fast_wake_stop(f);
	if (f->sh)
		vg_fast_region_free(f->sh, f->len);
	free_run(f);
}
