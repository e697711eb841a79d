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

#include <elf.h>
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
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fast/agent_blob.h"
#include "fast/inject.h"
#include "reloc/reloc.h"
#include "fast/ring.h"
#include "fast/tramp.h"
#include "plan/plan.h"
#include "probe/probe.h"
#include "sym/maps.h"
#include "vigil_fast.h"

#define RING_BYTES (16u << 20)
#define STUB_MAX 160		/* an entry or return stub */
#define HOOK_BYTES (2 * STUB_MAX + VG_RELOC_MAX)
#define MAX_AREAS 16		/* files with patched functions */
#define FN_READ_MAX (256u << 10)	/* the function scanned for jumps */

struct hook {
	const char *path;	/* the plan's */
	char name[64];		/* its symbol and file, for gdb's `vigil */
	char file[256];		/* patches` (path is gone with the plan) */
	uint64_t off, size;	/* file offset, symbol size */
	uint64_t fn;		/* in the target */
	uint64_t text_lo, text_hi;	/* the mapping it is in */
	uint64_t entry;		/* its entry stub */
	int area;
	struct vg_fast_hook h;	/* what the agent gets */
	struct vg_reloc r;
};

/* Stubs and relocated code near one file's functions (a jmp rel32
 * reaches 2 GB) */
struct area {
	const char *path;
	uint64_t near, addr;
	size_t len, used;
	uint8_t *buf;
	struct vg_reloc_jump *jumps;	/* the direct branches of the
					 * file's code, as mapped, for
					 * jumps into a patch */
	size_t njumps;
	uint64_t text_lo, text_hi;
};

struct vg_fast_run {
	pid_t pid;
	struct vg_probe *probe;
	struct vg_fast_shared *sh;	/* vigil's mapping of the region */
	size_t len;
	uint64_t remote;		/* the region in the target */
	uint64_t agent;			/* the agent's code in the target */
	struct area areas[MAX_AREAS];
	int nareas;
	struct hook hooks[VG_FAST_MAX_HOOKS];
	int nhooks;
	bool patched;
};

int vg_fast_nhooks(const struct vg_fast_run *f)
{
	return f ? f->nhooks : 0;
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
	v->path = k->file;
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
			if (f->hooks[j].off == u->func &&
			    !strcmp(f->hooks[j].path, u->path))
				k = &f->hooks[j];
		if (u->prog == VG_PROG_STASH)	/* below */
			continue;
		if (!k) {
			if (f->nhooks == VG_FAST_MAX_HOOKS)
				return vg_errf(e, "the in-process tier takes at most %d functions (--no-fast, or fewer names in --fast)",
					       VG_FAST_MAX_HOOKS);
			k = &f->hooks[f->nhooks++];
			k->path = u->path;
			snprintf(k->name, sizeof(k->name), "%.63s", u->sym);
			snprintf(k->file, sizeof(k->file), "%.255s", u->path);
			k->off = u->func;
			k->size = u->size;
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
			if (f->hooks[j].off == plan->sites[i].func &&
			    !strcmp(f->hooks[j].path, plan->sites[i].path))
				f->hooks[j].h.ret_args = 1;
	return 0;
}

/* Where each function is in the target: its file's mapping in
 * /proc/pid/maps, matched by device and inode, or by its path (on an
 * overlay, maps shows the lower file's device, stat the overlay's) */
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

/* The target's vDSO clock_gettime: the vDSO is the kernel's, the same
 * image in every process, so its offset in vigil's own is the target's */
static uint64_t vdso_clock_gettime(pid_t pid)
{
	const unsigned char *img = (void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh;
	uint64_t their = 0, aux[2];
	char path[64];
	int fd;

	if (!img)
		return 0;
	sh = (const void *)(img + eh->e_shoff);
	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (read(fd, aux, sizeof(aux)) == sizeof(aux) && aux[0])
		if (aux[0] == AT_SYSINFO_EHDR)
			their = aux[1];
	close(fd);
	for (int i = 0; their && i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		const char *names;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		sym = (const void *)(img + sh[i].sh_offset);
		names = (const char *)(img + sh[sh[i].sh_link].sh_offset);
		for (size_t j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
			if (!strcmp(names + sym[j].st_name,
				    "__vdso_clock_gettime"))
				return their + sym[j].st_value;
	}
	return 0;
}

/* The region's layout: header, the owner's mutex, the event table, the
 * kernel tier's tables, the ring (the threads have a mapping of their
 * own: threads()) */
struct layout {
	size_t owner, evconf, kprops, ktrans, kcode, ring, len;
};

static size_t up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

static void lay_out(struct layout *l)
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
	l->len = at + RING_BYTES;
}

/* The tables the agent reads, from the plan */
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
	sh->clock_gettime = vdso_clock_gettime(f->pid);
	if (!sh->clock_gettime)
		return vg_errf(e, "the target's vDSO has no clock_gettime: the in-process tier needs it for the events' times (--no-fast)");
	for (int i = 0; i < plan->nevents && i < VG_MAX_EVENTS; i++)
		conf[i] = plan->events[i].conf;
	sh->nkprops = (uint32_t)plan->kt.nkprops;
	if (plan->kt.ncode > VG_KMAX_CODE)
		return vg_errf(e, "the kernel tier's code does not fit");
	vg_ktier_fill(&plan->kt, (struct vg_kprop *)(base + l->kprops),
		      (struct vg_ktrans *)(base + l->ktrans),
		      (struct vg_insn *)(base + l->kcode));
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

/* Code outside the function may jump into its patch too (glibc's
 * mempcpy ends with a jmp to memmove+3): the whole mapping it is in,
 * read once per file, swept for such jumps (reloc.h). why "" with e set
 * when the mapping could not be read. */
static int sweep(struct area *ar, const struct hook *k, struct vg_inject *in,
		 char *why, size_t len, struct vg_err *e)
{
	*why = 0;
	if (!ar->jumps || ar->text_lo != k->text_lo) {
		uint8_t *text = malloc(k->text_hi - k->text_lo);

		free(ar->jumps);
		ar->jumps = NULL;
		ar->text_lo = k->text_lo;
		ar->text_hi = k->text_hi;
		if (!text)
			return vg_errf(e, "out of memory");
		if (vg_inject_read(in, k->text_lo, text,
				   k->text_hi - k->text_lo, e)) {
			free(text);
			return -1;
		}
		if (vg_reloc_jumps(text, ar->text_lo, ar->text_hi - ar->text_lo,
				   &ar->jumps, &ar->njumps)) {
			free(text);
			return vg_errf(e, "out of memory");
		}
		free(text);
	}
	return vg_reloc_check_jumps(ar->jumps, ar->njumps, k->fn,
				    k->r.patch_len, why, len);
}

static const struct vg_agent_head *head(void)
{
	return (const struct vg_agent_head *)vg_agent_blob;
}

/* Each function's stubs and relocated instructions, in its area */
static int build_hooks(struct vg_fast_run *f, struct vg_inject *in,
		       struct vg_err *e)
{
	uint8_t *code = malloc(FN_READ_MAX);
	int rc = -1;

	if (!code)
		return vg_errf(e, "out of memory");
	for (int i = 0; i < f->nhooks; i++) {
		struct hook *k = &f->hooks[i];
		struct area *ar = &f->areas[k->area];
		uint64_t at = ar->addr + ar->used, entry = at,
			 ret = at + STUB_MAX, reloc = at + 2 * STUB_MAX;
		uint32_t n = k->size > FN_READ_MAX ? FN_READ_MAX
						   : (uint32_t)k->size;
		char why[256];
		int len;

		if (n < 16)
			n = 16;
		if (vg_inject_read(in, k->fn, code, n, e))
			goto out;
		if (vg_reloc_build(code, (uint32_t)k->size, k->fn, reloc, entry,
				   &k->r, why, sizeof(why)) ||
		    sweep(ar, k, in, why, sizeof(why), e)) {
			if (!why[0])
				goto out;	/* e says why */
			vg_errf(e, "%s+0x%" PRIx64 " cannot be patched: %s (the plan gave it no uprobe; run with --no-fast, or leave it out of --fast)",
				k->path, k->off, why);
			goto out;
		}
		memcpy(ar->buf + ar->used + 2 * STUB_MAX, k->r.code, k->r.len);
		len = vg_tramp_entry_stub(ar->buf + ar->used, STUB_MAX, entry,
					  (uint32_t)i,
					  f->agent + head()->entry_off, reloc);
		if (len < 0) {
			vg_errf(e, "building the entry stub");
			goto out;
		}
		if (k->h.nret || 1) {	/* LEAVE-only functions return too */
			len = vg_tramp_return_stub(ar->buf + ar->used + STUB_MAX,
						   STUB_MAX, ret, (uint32_t)i,
						   f->agent + head()->return_off);
			if (len < 0) {
				vg_errf(e, "building the return stub");
				goto out;
			}
			k->h.ret_stub = ret;
		}
		k->h.fn = k->fn;
		k->entry = entry;
		k->h.reloc = reloc;
		k->h.patch_len = k->r.patch_len;
		ar->used += HOOK_BYTES;
		f->sh->hooks[i] = k->h;
	}
	f->sh->nhooks = (uint32_t)f->nhooks;
	rc = 0;
out:
	free(code);
	return rc;
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

static int patch(struct vg_fast_run *f, struct vg_inject *in, bool out,
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
	return vg_inject_patch(in, addr, bytes, len, f->nhooks, 0, 0, e);
}

/* The probe module's second source (probe.h): the ring's records, as
 * the BPF ring's, counted */
struct feed {
	int (*deliver)(void *, void *, size_t);
	void *dctx;
	int n;
};

static int feed_one(void *ctx, const void *rec, size_t len)
{
	struct feed *d = ctx;

	d->n++;
	return d->deliver(d->dctx, (void *)rec, len);
}

static int drain(void *ctx, int (*deliver)(void *, void *, size_t),
		 void *dctx)
{
	struct vg_fast_run *f = ctx;
	struct feed d = { deliver, dctx, 0 };

	if (vg_fast_ring_consume(f->sh, f->sh, feed_one, &d))
		return -1;
	return d.n;
}

static void counts(void *ctx, int event, uint64_t *hits, uint64_t *lost)
{
	struct vg_fast_run *f = ctx;

	if (event >= 0 && event < VG_MAX_EVENTS) {
		*hits = __atomic_load_n(&f->sh->ev_hits[event], __ATOMIC_RELAXED);
		*lost = __atomic_load_n(&f->sh->ev_lost[event], __ATOMIC_RELAXED);
	}
}

static uint64_t counter(void *ctx, int c)
{
	struct vg_fast_run *f = ctx;
	const __u64 *n = f->sh->cnt;

	switch (c) {
	case VG_CNT_KFULL:
		return n[VG_FCNT_KFULL];
	case VG_CNT_KBUSY:
		return n[VG_FCNT_KBUSY];
	case VG_CNT_KERR:
		return n[VG_FCNT_KERR];
	case VG_CNT_CAPFAULT:
		return n[VG_FCNT_CAPFAULT];
	case VG_CNT_RB_LOST:
		return n[VG_FCNT_LOST];
	}
	return 0;
}

int vg_fast_install(pid_t pid, bool launching, const struct vg_plan *plan,
		    struct vg_probe *probe, struct vg_fast_run **out,
		    struct vg_err *e)
{
	struct vg_fast_run *f = calloc(1, sizeof(*f));
	struct vg_inject *in = NULL;
	struct layout l;
	uint32_t tid_off;
	void *local = NULL;
	int rc = -1;

	*out = NULL;
	if (!f)
		return vg_errf(e, "out of memory");
	f->pid = pid;
	f->probe = probe;
	if (collect(f, plan, e))
		goto out;
	if (launching ? vg_inject_run_to_entry(pid, &in, e)
		      : vg_inject_seize(pid, &in, e))
		goto out;
	lay_out(&l);
	if (locate(f, e) || plan_areas(f, e) || map_code(f, in, e) ||
	    vg_inject_shared(in, l.len, &f->remote, &local, e))
		goto out;
	f->sh = local;
	f->len = l.len;
	if (vg_inject_tid_offset(in, &tid_off, e))
		goto out;
	f->sh->tid_off = tid_off;
	if (fill(f, plan, &l, e) || threads(f, in, e) ||
	    (any_kernel_hook(f, plan) && share_kslots(f, in, e)) ||
	    build_hooks(f, in, e) || write_code(f, in, e) ||
	    patch(f, in, false, e))
		goto out;
	f->patched = true;
	__atomic_store_n(&f->sh->enabled, 1, __ATOMIC_RELEASE);
	/* vigil run's child stays at its entry, in a group stop, for the
	 * session to let it go (vg_proc_release) */
	if (launching)
		kill(pid, SIGSTOP);
	vg_inject_release(in);
	in = NULL;
	vg_probe_set_source(probe, &(struct vg_probe_source){
		.drain = drain, .counts = counts, .counter = counter, .ctx = f });
	*out = f;
	rc = 0;
out:
	if (in) {
		if (launching)
			kill(pid, SIGSTOP);
		vg_inject_release(in);
	}
	for (int a = 0; a < f->nareas; a++) {
		free(f->areas[a].jumps);
		f->areas[a].jumps = NULL;
	}
	if (rc) {
		for (int a = 0; a < f->nareas; a++)
			free(f->areas[a].buf);
		if (local)
			munmap(local, l.len);
		free(f);
	}
	return rc;
}

void vg_fast_uninstall(struct vg_fast_run *f, bool target_gone)
{
	struct vg_inject *in;
	struct vg_err e = { 0 };

	if (!f)
		return;
	__atomic_store_n(&f->sh->enabled, 0, __ATOMIC_RELEASE);
	if (!getenv("VG_DBG_NOUNPATCH") && !target_gone && f->patched) {
		/* (a live gdb session's gdb traces it: no seize) */
		if (vg_inject_seize(f->pid, &in, &e))
			in = NULL;
		if ((!in && !kill(f->pid, 0)) || (in && patch(f, in, true, &e)))
			fprintf(stderr, "vigil: taking the in-process tier's patches out of pid %d: %s (they stay: the functions keep working, unrecorded)\n",
				f->pid, e.msg);
		if (in)
			vg_inject_release(in);
	}
	/* its records are not read any more */
	vg_probe_set_source(f->probe, &(struct vg_probe_source){ 0 });
	/* unlocked: the agent sees no owner, as if vigil were gone */
	pthread_mutex_unlock((pthread_mutex_t *)((char *)f->sh +
						 f->sh->owner_off));
	for (int a = 0; a < f->nareas; a++)
		free(f->areas[a].buf);
	munmap(f->sh, f->len);
	free(f);
}
