/* Which call probes the in-process tier takes (plan.h, vg_plan_pass_fast).
 *
 * A function the tier takes is patched in the target (user/fast/): its
 * events are recorded and its kernel-tier properties stepped by an agent
 * inside the process, with no trap; it gets no uprobe. Two rules decide:
 *
 * - What the agent can do (inproc/agent.c): arguments, return values,
 *   memory reads, `outside` depths, user-tier records, holds for
 *   watchpoints and the kernel tier's step. Not: user stacks, C strings,
 *   --dynamic's arming, calls checked against watched blocks, deadlines
 *   (BPF timers) and checkpoint stops of the kernel tier.
 *
 * - One state per slice. A kernel-tier property has it whatever steps
 *   its events: the agent steps the kernel tier's own slice table, mapped
 *   into the target, under the same per-slice lock, so malloc in-process
 *   and a program function by uprobe step one slice in the order they
 *   happen. A user-tier property's events would come to the monitor
 *   through two rings, in no common order: they go one way or the other,
 *   all of them. So events that share a user-tier property, a function
 *   (never both a patch and a uprobe), an `outside` depth (counted
 *   where it is read) or the count of releases holds read (the events
 *   that arm or free a watchpoint) form a group, in-process whole or not at all: one
 *   event the agent cannot take keeps its whole group on uprobes, and
 *   lint says which and why.
 */
#include "plan/plan.h"

#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/jump_cache.h"
#include "reloc/reloc.h"
#include "util/err.h"

/* A file's executable segment, read once for all its functions (file
 * offsets stand for addresses: the code is position-independent, the
 * distances are the same once mapped) */
struct text {
	char path[4096];
	uint8_t *code;		/* NULL: could not be read */
	uint64_t off, len;
	struct vg_reloc_jump *jumps;	/* its direct branches, by target */
	size_t njumps;
};

/* The files read so far: a plan's sites go from one file to another
 * (a spec's events in its order), and reading libc's code costs a few
 * ms, sweeping it ~25 ms more when jump_cache.h has no copy */
#define TEXTS 8
struct texts {
	struct text v[TEXTS];
	int next;		/* the one to replace */
};

/* The functions of the memory, string and lock libraries
 * (specs/lib/): called the most in any program, so a trap on each costs
 * the most. */
static const char *const hot[] = {
	/* memory */
	"malloc", "calloc", "realloc", "reallocarray", "free", "memalign",
	"posix_memalign", "aligned_alloc", "valloc", "pvalloc", "strdup",
	"strndup", "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t",
	"_ZnamRKSt9nothrow_t", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm",
	/* strings */
	"memcpy", "memmove", "memset", "memcmp", "strcpy", "stpcpy",
	"strncpy", "strcat", "strncat", "strlen", "strnlen", "strcmp",
	"strncmp",
	/* the other calls specs/lib/heap_overflow.vigil checks: a size
	 * argument, a buffer read into or written from */
	"snprintf", "vsnprintf", "fgets", "fread", "read", "pread", "pread64",
	"recv", "recvfrom", "write", "send",
	/* locks (with what specs/lib/mutex*.vigil and lock_*.vigil ask of
	 * the condition variables and a mutex's end) */
	"pthread_mutex_lock", "pthread_mutex_unlock", "pthread_mutex_trylock",
	"pthread_mutex_timedlock", "pthread_mutex_clocklock",
	"pthread_mutex_init", "pthread_mutex_destroy",
	"pthread_cond_wait", "pthread_cond_timedwait",
	"pthread_cond_clockwait", "pthread_rwlock_rdlock",
	"pthread_rwlock_wrlock", "pthread_rwlock_tryrdlock",
	"pthread_rwlock_trywrlock", "pthread_rwlock_unlock",
	"pthread_spin_lock", "pthread_spin_trylock", "pthread_spin_unlock",
};

bool vg_plan_fast_hot(const char *name)
{
	for (size_t i = 0; i < sizeof(hot) / sizeof(hot[0]); i++)
		if (!strcmp(name, hot[i]))
			return true;
	return false;
}

static bool named(const struct vg_plan_opts *o, const char *name)
{
	for (size_t i = 0; i < o->nfast_funcs; i++)
		if (!fnmatch(o->fast_funcs[i], name, 0))
			return true;
	return false;
}

/* a `fast` line of the spec's names it */
static bool spec_named(const struct vg_spec *spec, const char *name)
{
	const char *pat;

	for (int i = 0; (pat = vg_spec_fast(spec, i)); i++)
		if (!fnmatch(pat, name, 0))
			return true;
	return false;
}

/* Who asks the in-process tier for a function of this name: "hot",
 * "--fast", "the spec's fast"; NULL when nobody does */
static const char *asker(const struct vg_spec *spec,
			 const struct vg_plan_opts *o, const char *name)
{
	if (o->fast_hot && vg_plan_fast_hot(name))
		return "hot";
	if (named(o, name))
		return "--fast";
	if (spec_named(spec, name))
		return "the spec's fast";
	return NULL;
}

bool vg_plan_fast_predicted(const struct vg_spec *spec, int i,
			    const struct vg_plan_opts *o)
{
	const struct vg_event *ev = &spec->events[i];

	if (o->no_fast_why || o->fast_off)
		return false;
	if ((ev->kind != VG_EV_BEFORE && ev->kind != VG_EV_AFTER) ||
	    ev->nstrs || ev->client_request || ev->access_for)
		return false;
	/* an `outside` depth's counter goes where the events it guards go:
	 * in-process, when any is asked for */
	if (ev->marks_inside)
		for (int k = 0; k < spec->nevents; k++)
			if (k != i && !spec->events[k].marks_inside &&
			    spec->events[k].outside_mask &&
			    vg_plan_fast_predicted(spec, k, o))
				return true;
	return asker(spec, o, ev->name) != NULL;
}

/* An event that only counts an `outside` depth (_IO_file_doallocate's
 * entry and return for the memory specs): it goes where the events that
 * read the depth go */
static bool counter_only(const struct vg_plan *p, int i)
{
	const struct vg_plan_event *pe = &p->events[i];

	return (pe->flags & (VG_EVF_ENTER | VG_EVF_LEAVE)) &&
	       !(pe->flags & VG_EVF_USER) && !pe->conf.nkprops;
}

/* Who asks the in-process tier for this site's function (lint says):
 * NULL when nobody does */
static const char *asked(const struct vg_plan *p, const struct vg_plan_opts *o,
			 const struct vg_plan_site *u)
{
	const char *by;

	if (o->fast_off)
		return NULL;
	/* by the spec's name, or by the symbol (a C++ name's mangled one) */
	if ((by = asker(p->spec, o, p->spec->events[u->event].name)) ||
	    (u->sym[0] && (by = asker(p->spec, o, u->sym))))
		return by;
	if (counter_only(p, u->event))
		return "counts an outside depth";
	return NULL;
}

static bool wanted(const struct vg_plan *p, const struct vg_plan_opts *o,
		   const struct vg_plan_site *u)
{
	return asked(p, o, u) != NULL;
}

/* The flags the agent handles; any other keeps the event on uprobes */
#define FAST_FLAGS (VG_EVF_USER | VG_EVF_WAKE | VG_EVF_ARGS | VG_EVF_RETX | \
		    VG_EVF_ENTER | VG_EVF_LEAVE | VG_EVF_HOLD | VG_EVF_UNWATCH)

/* Why the agent cannot take event i ("" when it can) */
static void event_why(const struct vg_plan *p, int i, char *why, size_t len)
{
	const struct vg_plan_event *pe = &p->events[i];
	const struct vg_ev_conf *c = &pe->conf;
	uint32_t extra = pe->flags & ~(uint32_t)FAST_FLAGS;

	*why = 0;
	if (extra & VG_EVF_STACK)
		snprintf(why, len, "it takes the user stack (--stacks, a backtrace reaction, or the leak check's records)");
	else if (extra & VG_EVF_STRS)
		snprintf(why, len, "it reads C strings");
	else if (extra)
		snprintf(why, len, "its probe does more than the agent can (flags 0x%x)", extra);
	else if (pe->arms || (p->dormant >> (i & 63) & 1 && i < 64))
		snprintf(why, len, "--dynamic attaches and detaches it");
	/* the probes filter such calls by the watched blocks' pages, a BPF
	 * map the agent cannot read; where no debug register fires, no
	 * filter: every call is sent (plan.c, pass_blind) */
	else if (c->nrng && !p->no_debug_regs)
		snprintf(why, len, "it is checked against watched blocks");
	for (uint32_t k = 0; !*why && k < c->nkprops && k < VG_KMAX_EV_PROPS; k++) {
		const struct vg_kprop *kp = &p->kt.kprops[c->kprop[k]];

		if (kp->timed_mask)
			snprintf(why, len, "its kernel-tier property has a deadline (a BPF timer)");
		else if (kp->ckpt_mask)
			snprintf(why, len, "its kernel-tier property checkpoints");
	}
}

static int find(int *up, int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

static void join(int *up, int a, int b)
{
	a = find(up, a);
	b = find(up, b);
	if (a != b)
		up[a] = b;
}

/* An event that is never a patched call: a watchpoint hit, a system
 * call, a signal, or a call checked against watched blocks. Its record
 * comes through the BPF ring, after whatever the agent recorded before it
 * happened: the probe module drains the agent's ring again before each
 * such record and delivers both in time order (probe.c, on_record). So
 * it need not share its property's tier. */
static bool ordered_apart(const struct vg_spec *s, int ev)
{
	const struct vg_event *e = &s->events[ev];

	return (e->kind != VG_EV_BEFORE && e->kind != VG_EV_AFTER) ||
	       e->access_for;
}

/* Group the events (the file comment's second rule); p->kernel[i]:
 * property i is in the kernel tier */
static void group(const struct vg_plan *p, int *up)
{
	const struct vg_spec *s = p->spec;

	for (int i = 0; i < p->nevents; i++)
		up[i] = i;
	for (int i = 0; i < s->nprops; i++) {
		int first = -1;

		for (int b = 0; !p->kernel[i] && b < s->props[i].nbindings; b++) {
			int ev = s->props[i].bindings[b].event;

			if (!ordered_apart(s, ev))
				first < 0 ? (void)(first = ev)
					  : join(up, first, ev);
		}
	}
	for (int a = 0; a < p->nsites; a++)
		for (int b = a + 1; b < p->nsites; b++)
			if (p->sites[a].func == p->sites[b].func &&
			    !strcmp(p->sites[a].path, p->sites[b].path))
				join(up, p->sites[a].event, p->sites[b].event);
	/* the events that may free a register: their releases counted in
	 * one tier, which the holds of that tier read (vigil_fast.h) */
	for (int i = 0, first = -1; i < p->nevents; i++) {
		if (!(p->events[i].flags & VG_EVF_UNWATCH) ||
		    ordered_apart(s, i))
			continue;
		if (first < 0)
			first = i;
		else
			join(up, first, i);
	}
	for (int d = 0; d < VG_MAX_INSIDE; d++) {
		int first = -1;

		for (int i = 0; i < p->nevents; i++) {
			const struct vg_ev_conf *c = &p->events[i].conf;
			bool counts = (p->events[i].flags &
				       (VG_EVF_ENTER | VG_EVF_LEAVE)) &&
				      c->inside == d;

			/* one never in-process reads the depth wherever it
			 * is counted (bpf/fast_inside.bpf.h) */
			if (!counts && (!(c->outside >> d & 1) ||
					ordered_apart(s, i)))
				continue;
			if (first < 0)
				first = i;
			else
				join(up, first, i);
		}
	}
}

static int read_text(const char *path, struct text *t)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;

	free(t->code);
	free(t->jumps);
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
			  (uint64_t)i * eh.e_phentsize)) != sizeof(ph))
			goto out;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		t->off = ph.p_offset;
		t->len = ph.p_filesz;
		if (!(t->code = malloc(t->len)) ||
		    pread(fd, t->code, t->len, (off_t)t->off) != (ssize_t)t->len ||
		    vg_jump_cache_get(path, t->code, t->off, t->len,
				      &t->jumps, &t->njumps))
			goto out;
		rc = 0;
		break;
	}
out:
	if (rc) {
		free(t->code);
		t->code = NULL;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

static struct text *text_of(struct texts *ts, const char *path)
{
	struct text *t;

	for (int i = 0; i < TEXTS; i++)
		if (!strcmp(ts->v[i].path, path))
			return &ts->v[i];
	t = &ts->v[ts->next];
	ts->next = (ts->next + 1) % TEXTS;
	read_text(path, t);
	return t;
}

static void texts_free(struct texts *ts)
{
	for (int i = 0; i < TEXTS; i++) {
		free(ts->v[i].code);
		free(ts->v[i].jumps);
	}
}

/* Can u's function be patched at file offset fn (reloc.h)? why says why
 * not. */
static void patchable_at(const struct vg_plan_site *u, struct text *t,
			 uint64_t fn, char *why, size_t len)
{
	uint64_t size = u->size > fn - u->func ? u->size - (fn - u->func) : 0;
	struct vg_reloc r;

	*why = 0;
	if (!t->code)
		snprintf(why, len, "its file's code cannot be read");
	else if (fn < t->off || fn + 16 > t->off + t->len)
		snprintf(why, len, "not in its file's executable segment");
	else if (!vg_reloc_build(t->code + (fn - t->off),
				 (uint32_t)(size && fn + size <= t->off + t->len
					    ? size : 0),
				 fn, fn + (64u << 20), fn + (64u << 20), &r,
				 why, len))
		vg_reloc_check_jumps(t->jumps, t->njumps, fn, r.patch_len,
				     why, len);
	else if (!*why)
		snprintf(why, len, "its first instructions cannot be moved");
}

/* Where the entry probes of u's function may go instead of its first
 * byte: the least offset placement moved them to (plan_place.c), past
 * instructions that only test or write caller-saved registers, so %rsp
 * still points at the return address, as the entry stub wants, and a
 * stop sent back to the patch (fast_rewind.c, with the frame's flags)
 * redoes nothing. u->func when none moved, or one went onto a tail
 * call's jmp. glibc's memmove needs it: __mempcpy jumps to its second
 * instruction, inside a patch at its first; the uprobe there is moved
 * past both, so it sees mempcpy's calls as memmove's already. */
static uint64_t moved_entry(const struct vg_plan *p,
			    const struct vg_plan_site *u)
{
	uint64_t at = UINT64_MAX;

	for (int k = 0; k < p->nsites; k++) {
		const struct vg_plan_site *s = &p->sites[k];

		if (s->func != u->func || strcmp(s->path, u->path) ||
		    s->retprobe)
			continue;
		if (s->jmp)
			return u->func;
		if (s->offset < at)
			at = s->offset;
	}
	return at == UINT64_MAX ? u->func : at;
}

/* Can the function at u be patched, and where: its first byte, else
 * where its entry probes were moved to (*at); why says why not. */
static void patchable(const struct vg_plan *p, const struct vg_plan_site *u,
		      struct texts *ts, uint64_t *at, char *why, size_t len)
{
	struct text *t = text_of(ts, u->path);
	uint64_t moved = moved_entry(p, u);
	char first[160];

	*at = u->func;
	patchable_at(u, t, u->func, why, len);
	if (!*why || moved == u->func)
		return;
	snprintf(first, sizeof(first), "%s", why);
	patchable_at(u, t, moved, why, len);
	if (!*why)
		*at = moved;
	else	/* the first byte's reason: the usual one */
		snprintf(why, len, "%s", first);
}

/* Why event i is not a call the agent can take on its own ("": it is):
 * its kind, its sites, what it reads; where each of its sites would be
 * patched, in patch_at[site] */
static void own_why(const struct vg_plan *p, const struct vg_plan_opts *o,
		    int i, struct texts *t, uint64_t *patch_at, char *why,
		    size_t len)
{
	const struct vg_event *ev = &p->spec->events[i];
	int nsites = 0;

	*why = 0;
	if (ev->kind != VG_EV_BEFORE && ev->kind != VG_EV_AFTER) {
		snprintf(why, len, "not a function call");
		return;
	}
	for (int k = 0; k < p->nsites; k++) {
		const struct vg_plan_site *u = &p->sites[k];

		if (u->event != i)
			continue;
		nsites++;
		if (u->prog != VG_PROG_ENTRY && u->prog != VG_PROG_STASH &&
		    u->prog != VG_PROG_RETURN) {
			snprintf(why, len, "its probe reads strings or client requests");
			return;
		}
		if (!wanted(p, o, u)) {
			snprintf(why, len, "not asked for (--fast %s, or `fast %s` in the spec)",
				 ev->name, ev->name);
			return;
		}
		*why = 0;
		patchable(p, u, t, &patch_at[k], why, len);
		if (*why)
			return;
	}
	if (!nsites) {
		snprintf(why, len, "no function site");
		return;
	}
	for (int k = 0; o->fast_user_why && k < p->spec->nprops; k++)
		for (int b = 0; !p->kernel[k] && b < p->spec->props[k].nbindings; b++)
			if (p->spec->props[k].bindings[b].event == i) {
				snprintf(why, len, "%s", o->fast_user_why);
				return;
			}
	event_why(p, i, why, len);
}

int vg_plan_pass_fast(struct vg_plan *p, const struct vg_plan_opts *o,
		      struct vg_err *e)
{
	int n = p->nevents, *up = malloc((size_t)(n + 1) * sizeof(int));
	char (*why)[160] = calloc((size_t)n + 1, sizeof(*why));
	int *bad = calloc((size_t)n + 1, sizeof(int));
	uint64_t *patch_at = calloc((size_t)p->nsites + 1, sizeof(*patch_at));
	struct texts *t = calloc(1, sizeof(*t));

	if (!up || !why || !bad || !patch_at || !t) {
		free(t);
		free(up);
		free(why);
		free(bad);
		free(patch_at);
		return vg_errf(e, "out of memory");
	}
	group(p, up);
	/* a group's first event the agent cannot take, by the group's root */
	for (int i = 0; i < n; i++)
		bad[i] = -1;
	for (int i = 0; i < n; i++) {
		own_why(p, o, i, t, patch_at, why[i], sizeof(why[i]));
		if (why[i][0] && bad[find(up, i)] < 0)
			bad[find(up, i)] = i;
	}
	p->nfast = 0;
	p->fast_inside = 0;
	for (int k = 0; k < p->nsites; k++) {
		struct vg_plan_site *u = &p->sites[k];
		int b = bad[find(up, u->event)];

		u->fast = false;
		u->fast_why[0] = 0;
		if (!wanted(p, o, u))
			continue;
		if (o->no_fast_why)
			snprintf(u->fast_why, sizeof(u->fast_why), "%s",
				 o->no_fast_why);
		else if (b == u->event)
			snprintf(u->fast_why, sizeof(u->fast_why), "%s",
				 why[b]);
		else if (b >= 0)
			snprintf(u->fast_why, sizeof(u->fast_why),
				 "goes with %s %s, which the agent cannot take: %s",
				 vg_event_kind_name(p->spec->events[b].kind),
				 p->spec->events[b].name, why[b]);
		else {
			u->patch = patch_at[k];
			u->fast = true;
			u->fast_by = asked(p, o, u);
			p->nfast++;
			if (p->events[u->event].flags &
			    (VG_EVF_ENTER | VG_EVF_LEAVE))
				p->fast_inside |= 1u <<
					p->events[u->event].conf.inside;
		}
	}
	free(up);
	free(why);
	free(bad);
	free(patch_at);
	texts_free(t);
	free(t);
	return p->nfast;
}

int vg_plan_fast_parse(const char *list, struct vg_plan_fast_req *r,
		       struct vg_err *e)
{
	char *save = NULL, *tok;

	free(r->buf);
	memset(r, 0, sizeof(*r));
	if (!(r->buf = strdup(list)))
		return vg_errf(e, "out of memory");
	for (tok = strtok_r(r->buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "hot")) {
			r->hot = true;
			continue;
		}
		if (r->n == VG_PLAN_FAST_NAMES)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "--fast: more than %d names; a pattern (sqlite3_*) takes many",
					    VG_PLAN_FAST_NAMES);
		r->names[r->n++] = tok;
	}
	return 0;
}

void vg_plan_fast_apply(const struct vg_plan_fast_req *r, bool off,
			struct vg_plan_opts *o)
{
	o->fast_off = off;
	o->fast_objmap = !off;
	o->ktier_objmap = true;
	o->fast_hot = !off && r->hot;
	o->fast_funcs = off ? NULL : (const char *const *)r->names;
	o->nfast_funcs = off ? 0 : r->n;
}

const char *vg_plan_fast_default(void)
{
	const char *v = getenv("VIGIL_FAST");

	if (!v || !*v)
		return "hot";
	return strcmp(v, "off") ? v : NULL;
}
