/* The memory predicates in both tiers (docs/LANGUAGE.md, Memory
 * predicates): the same random events -- blocks allocated, reallocated
 * and freed in a stretch of this process's own heap, pointers inside
 * them, at their end, past and before them, between them, into freed
 * ones, into a writable and a read-only global, into memory neither tier
 * knows (this thread's stack, a page that cannot be read), strings read
 * from this process's memory -- to the user tier's monitor asking the
 * object map of a run (user/objmap/: its oracle, reading this process as
 * it reads a target, its mappings, its symbols, its strings) and to the
 * in-process step (inproc/kstep.c) asking the agent's map
 * (include/vigil_objmap.h), filed as the agent files it
 * (inproc/objmap.c). Every step must agree: the transitions and the
 * variables they carry (the evidence), the slices' states and variables,
 * how many events a predicate left unchecked, and how many of those left
 * their slice out of its initial state (inconclusive).
 * DIFF_MEM_TRACE=1 in the environment prints each event, and what each
 * map says of its pointers.
 *
 * Not compared: a pointer in no mapping at all (the user tier knows it
 * is in no object, the agent does not: documented), and freeable() of
 * memory neither map has an entry for (its answer there is not settled
 * yet); no free() is given such a pointer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "heap_ref.h"
#include "inproc_fixture.h"
#include "monitor/monitor.h"
#include "session/session_internal.h"
#include "sym/maps.h"
/* The user tier's map and the agent's are both a struct vg_objmap, and
 * their headers have one guard: the user tier's is named apart here (its
 * struct is opaque, its functions keep their names) */
#define vg_objmap vg_user_objmap
#include "objmap/objmap.h"
#undef vg_objmap
#undef VIGIL_OBJMAP_H
#include "vigil_objmap.h"

/* Every predicate, in guards, updates and self-loops; && and || where
 * the side they skip would be unknown, and where it is asked */
static const char spec_text[] =
	"property ov \"calls stay inside their objects\"\n"
	"slice on ptr p\n"
	"uint len = 0, room = 0, over = 0, at = 0, seen = 0\n"
	"state ok accepting {\n"
	"  before use(p, n) when !valid(p, n) { len = n; at = p; room = valid(p, 1) ? block_length(p) - offset(p) : 0; over = len - room; } -> overflow\n"
	"  before use(p, n) when n > 150 && valid_read(p, n) { seen = seen + block_base(p) - p + offset(p) + 1; } -> ok\n"
	"  before str(p, s) when !valid(p, strlen_at(s, 4096) + 1) { len = strlen_at(s, 4096) + 1; at = p; room = block_length(p) - offset(p); over = len - room; } -> overflow\n"
	"  before str(p, s) when !valid_read(s, strlen_at(s, 300) + 1) { len = strlen_at(s, 300) + 1; at = s; } -> overread\n"
	"  before str(p, s) when valid(p, 1) { seen = seen + strlen_at(s, 64) + 1; } -> ok\n"
	"  before free(p) when p != 0 && freed(p) { at = p; } -> double_free\n"
	"  before free(p) when p != 0 && !freeable(p) { at = p; room = block_length(p); } -> bad_free\n"
	"}\n"
	"state overflow violation {}\n"
	"state overread violation {}\n"
	"state double_free violation {}\n"
	"state bad_free violation {}\n"
	"\n"
	"property life \"blocks from birth to free\"\n"
	"slice on ptr p\n"
	"int size = 0, base = 0, off = 0, fr = 0, sl = 0\n"
	"state init accepting {\n"
	"  after malloc(n) returns p when p != 0 { size = block_length(p); base = block_base(p) - p; off = offset(p); fr = freeable(p) * 2 + freed(p); } -> live\n"
	"  after realloc(q, n) returns p when p != 0 { size = block_length(p); fr = q == 0 ? 7 : freed(q) * 4 + valid(q, 1) * 2 + freeable(q); } -> live\n"
	"}\n"
	"state live accepting {\n"
	"  before use(p, n) when n > 64 || !valid_read(p, n) { size = block_length(p) + n; } -> bad\n"
	"  before use(p, n) { off = offset(p + n); } -> live\n"
	"  before str(p, s) when valid(p, 1) && strlen_at(s, 80) >= block_length(p) { sl = strlen_at(s, 80); } -> bad\n"
	"  before free(p) when freeable(p) { fr = freed(p) + 10; } -> freed\n"
	"}\n"
	"state freed accepting {\n"
	"  after malloc(n) returns p when block_length(p) == n { size = n; base = block_base(p); } -> live\n"
	"  after realloc(q, n) returns p when p != 0 { size = n; } -> live\n"
	"  before use(p, n) when freed(p) || n == 0 -> uaf\n"
	"  before free(p) when freed(p) -> dfree\n"
	"}\n"
	"state bad violation {}\n"
	"state uaf violation {}\n"
	"state dfree violation {}\n";

/* the memory the pointers are drawn from */
static char g_rw[64] = "a writable global";
static const char g_ro[48] = "a read-only one\0with more\0";
static char g_str[40] = "a string in a global, 34 bytes long";

struct dm {
	struct fix f;
	struct vg_objmap *agent;	/* in the region */
	struct vg_user_objmap *um;	/* the user tier's */
	struct vg_monitor *mon;
	int malloc_ev, realloc_ev, free_ev, use_ev, str_ev;
	struct heap_ref h;		/* the lanes: in [heap] */
	char *stack;			/* a caller's frame: unknown */
	char *noread;			/* PROT_NONE: unknown, unreadable */
	/* counted, for the test's own checks that it met every case */
	int viol[2], unknown_steps, kept_steps;
	uint32_t entered[2];		/* the states entered */
};


/* ---- the user tier: the object map of a run, on this process ---------- */

/* The run the map reads the process of: only its pid is asked
 * (vg_run_pid) */
static struct session run_self;

/* strlen_at's reads in the agent: this process's memory, through a
 * system call as the agent reads it */
static int read_here(void *ctx, void *dst, __u64 src, __u64 n)
{
	struct iovec l = { dst, n }, r = { (void *)(uintptr_t)src, n };

	(void)ctx;
	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)n ?
		       0 : -1;
}

/* ---- the transitions each tier took ----------------------------------- */

struct mcall {
	int prop, from, to;
	uint64_t key;
	int64_t vars[VG_KMAX_VARS];
};
static struct mcall mcalls[8];
static int nmcalls;

static void on_trans(void *ctx, const struct vg_slice_view *s, int from,
		     int to, const struct vg_mon_event *ev)
{
	const struct vg_spec *sp = ctx;
	struct mcall *c;

	if (from == to)		/* the kernel tier reports state changes */
		return;
	assert_true(nmcalls < 8);
	c = &mcalls[nmcalls++];
	*c = (struct mcall){ s->prop, from, to, s->params[0] };
	for (int i = 0; i < sp->props[s->prop].nvars; i++)
		c->vars[i] = s->vars[i];
}

struct mfound {
	int prop, nvars;
	uint64_t key;
	bool found, inconclusive;
	int state;
	int64_t v[VG_KMAX_VARS];
};

static void find_cb(void *ctx, const struct vg_slice_view *s)
{
	struct mfound *w = ctx;

	if (s->prop != w->prop || s->params[0] != w->key)
		return;
	w->found = true;
	w->state = s->state;
	w->inconclusive = s->inconclusive;
	for (int i = 0; s->vars && i < w->nvars; i++)	/* NULL: a tombstone */
		w->v[i] = s->vars[i];
}

/* the slice in the monitor (absent: initial) */
static struct mfound mon_slice(struct dm *t, int prop, uint64_t key)
{
	const struct vg_property *p = &t->f.spec->props[prop];
	struct mfound w = { .prop = prop, .nvars = p->nvars, .key = key };

	for (int i = 0; i < w.nvars; i++)
		w.v[i] = p->vars[i].init;
	vg_monitor_foreach(t->mon, find_cb, &w);
	return w;
}

static void count_inconc(void *ctx, const struct vg_slice_view *s)
{
	int *n = ctx;

	n[s->prop] += s->inconclusive;
}

static int inconclusive_slices(struct dm *t, int prop)
{
	int n[2] = { 0, 0 };

	vg_monitor_foreach(t->mon, count_inconc, n);
	return n[prop];
}

static bool is_violation(const struct vg_property *p, int state)
{
	return p->states[state].kind == VG_STATE_VIOLATION;
}

/* the slice keyed key in both: the same state, and out of a violation
 * the same variables */
static void compare_slice(struct dm *t, int prop, uint64_t key, int round)
{
	const struct vg_property *p = &t->f.spec->props[prop];
	struct mfound w = mon_slice(t, prop, key);
	struct vg_kslot *s = kslice(t->f.sh, (uint32_t)prop, key, 0);
	int ks = s ? s->state : 0;

	if (ks != w.state)
		fail_msg("round %d: %s(%#lx): agent's state %s, monitor's %s",
			 round, p->name, (unsigned long)key,
			 p->states[ks].name, p->states[w.state].name);
	if (is_violation(p, ks))
		return;
	for (int i = 0; i < p->nvars; i++) {
		int64_t kv = s ? s->vars[i] : p->vars[i].init;

		if (kv != w.v[i])
			fail_msg("round %d: %s(%#lx): %s: agent's %ld, monitor's %ld",
				 round, p->name, (unsigned long)key,
				 p->vars[i].name, (long)kv, (long)w.v[i]);
	}
}

/* ---- setting up ------------------------------------------------------- */

/* [heap] of this process, where the lanes must be (the user tier's map
 * takes a pointer there in no block for "no object", as the agent's
 * arena does) */
static void heap_range(uint64_t *lo, uint64_t *hi)
{
	struct vg_maps maps;
	struct vg_err e = { 0 };

	*lo = *hi = 0;
	if (vg_maps_read(getpid(), &maps, &e))
		fail_msg("maps: %s", e.msg);
	for (size_t i = 0; i < maps.n; i++)
		if (maps.v[i].path && !strcmp(maps.v[i].path, "[heap]")) {
			*lo = maps.v[i].start;
			*hi = maps.v[i].end;
		}
	vg_maps_free(&maps);
	assert_true(*lo < *hi);
}

static void dm_init(struct dm *t, char *stack)
{
	static const struct vg_monitor_hooks hooks0 = { .transition = on_trans };
	struct vg_monitor_hooks hooks = hooks0;
	struct vg_plan_opts o = { .tier = VG_TIER_AUTO,
				  .on_violation = VG_OV_CONTINUE,
				  .no_ktimer = true };
	struct vg_monitor_opts mo = { 0 };
	struct vg_spec *s = load(spec_text);
	struct vg_err e = { 0 };
	uint64_t nb = vg_om_nbuckets(4096), lo, hi;
	void *raw;
	size_t off;

	memset(t, 0, sizeof(*t));
	t->f.spec = s;
	if (!(t->f.plan = vg_plan_build(s, &o, &e)))
		fail_msg("plan: %s", e.msg);
	/* in the kernel tier by hand, as test_inproc_kstep_mem.c does (the
	 * plan gives it that tier only with a binary the in-process tier
	 * patches whole) */
	for (int i = 0; i < s->nprops; i++)
		t->f.plan->kernel[i] = t->f.plan->props[i].kernel = true;
	if (vg_ktier_plan(t->f.plan, &e))
		fail_msg("kernel tier: %s", e.msg);
	for (int i = 0; i < s->nprops; i++)
		assert_int_equal(t->f.plan->kt.kprop_map[i], i);
	t->f.sh = region_new_extra(t->f.plan, 8192, 4096, vg_om_size(nb), &off);
	t->agent = (struct vg_objmap *)((char *)t->f.sh + off);
	assert_int_equal(vg_om_init(t->agent, nb), 0);
	t->f.sh->objmap_off = off;
	t->f.env = (struct vg_inproc_env){ .sh = t->f.sh, .tgid = getpid(),
					   .tid = 4243, .now_ns = 1000,
					   .emit = emit, .read = read_here };
	nrecs = 0;
	drop = false;

	/* the user tier: a map bound to this process, launched under vigil
	 * (it saw every block: between them is no object) */
	run_self.pid = getpid();
	assert_non_null(t->um = vg_objmap_new(0));
	assert_int_equal(vg_objmap_bind(t->um, (struct vg_run *)&run_self, s,
					false), 0);
	hooks.ctx = s;
	if (!(t->mon = vg_monitor_new(s, &mo, &hooks, &e)))
		fail_msg("monitor: %s", e.msg);
	vg_monitor_set_mem(t->mon, vg_objmap_oracle(t->um));

	t->malloc_ev = event_of(s, "malloc", VG_EV_AFTER);
	t->realloc_ev = event_of(s, "realloc", VG_EV_AFTER);
	t->free_ev = event_of(s, "free", VG_EV_BEFORE);
	t->use_ev = event_of(s, "use", VG_EV_BEFORE);
	t->str_ev = event_of(s, "str", VG_EV_BEFORE);

	/* the lanes: in the brk heap (from sbrk itself: a sanitizer's
	 * malloc has a heap of its own), letters with a NUL now and then,
	 * and at each lane's end, so that a string read there ends in
	 * memory nothing writes meanwhile */
	raw = sbrk(LANES * LANE + 2 * LANE);
	assert_true(raw != (void *)-1);
	/* a lane's room before the first (a pointer before a block there
	 * is in [heap] too: no object, not "in no mapping") */
	t->h.lanes = (char *)(((uintptr_t)raw + 2 * LANE - 1) &
			      ~(uintptr_t)(LANE - 1));
	for (int i = 0; i < LANES * LANE; i++)
		t->h.lanes[i] = (i % LANE == LANE - 1 || !rnd(24)) ? 0
							: (char)('a' + rnd(26));
	heap_range(&lo, &hi);
	assert_true((uintptr_t)t->h.lanes >= lo &&
		    (uintptr_t)t->h.lanes + LANES * LANE <= hi);
	t->stack = stack;
	t->noread = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	assert_true(t->noread != MAP_FAILED);

	/* the agent's map as vigil fills it before the agent runs
	 * (user/fast/fast_objmap.c: the globals of the objects mapped, from
	 * their symbols) and as the agent reaches the heap (inproc/objmap.c:
	 * the brk heap, an arena) */
	assert_int_equal(vg_om_insert(t->agent, (uintptr_t)g_rw, sizeof(g_rw),
				      VG_OM_GLOBAL, 0), 0);
	assert_int_equal(vg_om_insert(t->agent, (uintptr_t)g_str,
				      sizeof(g_str), VG_OM_GLOBAL, 0), 0);
	assert_int_equal(vg_om_insert(t->agent, (uintptr_t)g_ro, sizeof(g_ro),
				      VG_OM_RODATA, 0), 0);
	assert_int_equal(vg_om_insert(t->agent, lo, hi - lo, VG_OM_ARENA, 0),
			 0);
}

static void dm_free(struct dm *t)
{
	vg_monitor_free(t->mon);
	vg_objmap_free(t->um);
	munmap(t->noread, 4096);
	fix_free(&t->f);
}

/* ---- the agent's filing (inproc/objmap.c, vg_om_event) ----------------- */

/* at a return: the block given out, before the step asks about it */
static void agent_returned(struct dm *t, const struct vg_mon_event *ev)
{
	uint64_t ret = ev->slot[VG_SLOT_RET];

	if (ev->event == t->realloc_ev && !ret && ev->slot[1] &&
	    ev->slot[0]) {
		/* failed: the old block, freed at the entry, is live again */
		vg_om_del(t->agent, ev->slot[0], VG_OM_FREED, VG_OM_HEAP);
		return;
	}
	if (ret)
		vg_om_insert(t->agent, ret, ev->slot[ev->event == t->malloc_ev ?
						     0 : 1],
			     VG_OM_HEAP, (uint32_t)ev->event);
}

/* ---- the events ------------------------------------------------------- */

static int64_t nunknown(struct dm *t, int prop)
{
	return (int64_t)vg_monitor_mem_unknown(t->mon, prop);
}

/* what a failure names: the event, its pointers as the test made them */
static const char *where(struct dm *t, uint64_t p)
{
	if (p - (uintptr_t)t->h.lanes < LANES * LANE)
		return "lanes";
	if (p - (uintptr_t)g_rw < sizeof(g_rw))
		return "g_rw";
	if (p - (uintptr_t)g_ro < sizeof(g_ro))
		return "g_ro";
	if (p - (uintptr_t)g_str < sizeof(g_str))
		return "g_str";
	if (p - (uintptr_t)t->stack < 64)
		return "stack";
	if (p - (uintptr_t)t->noread < 4096)
		return "noread";
	return p ? "?" : "null";
}

static void print_event(struct dm *t, const struct vg_mon_event *ev)
{
	print_message("event %s(%#lx [%s], %#lx [%s]) returns %#lx [%s]\n",
		      t->f.spec->events[ev->event].name,
		      (unsigned long)ev->slot[0], where(t, ev->slot[0]),
		      (unsigned long)ev->slot[1], where(t, ev->slot[1]),
		      (unsigned long)ev->slot[VG_SLOT_RET],
		      where(t, ev->slot[VG_SLOT_RET]));
	for (int k = 0; k < 2; k++) {
		struct vg_om_obj ao;
		struct vg_obj uo;
		int r = vg_om_lookup(t->agent, ev->slot[k], &ao);

		vg_objmap_lookup(t->um, ev->slot[k], &uo);
		print_message("  %#lx: agent's map %d: kind %u [%#lx, +%lu) flags %u; user's kind %d [%#lx, +%lu)\n",
			      (unsigned long)ev->slot[k], r, ao.kind,
			      (unsigned long)ao.base, (unsigned long)ao.len,
			      ao.flags, uo.kind, (unsigned long)uo.base,
			      (unsigned long)uo.size);
	}
	for (int i = 0; i < t->h.nlive; i++)
		if (ev->slot[0] - t->h.live[i].base <= t->h.live[i].len + 32 ||
		    ev->slot[1] - t->h.live[i].base <= t->h.live[i].len + 32)
			print_message("  live block %#lx, %lu bytes\n",
				      (unsigned long)t->h.live[i].base,
				      (unsigned long)t->h.live[i].len);
}

/* one event to both tiers; every step each took must be the other's */
static void diff_event(struct dm *t, struct vg_mon_event *ev, int round)
{
	const struct vg_spec *sp = t->f.spec;
	int64_t unk0[2], gone0[2], kunk0[2], kept0[2];
	struct vg_err e = { 0 };
	__u64 kslot[VG_NSLOTS];
	uint64_t key = ev->event == t->malloc_ev || ev->event == t->realloc_ev ?
			       ev->slot[VG_SLOT_RET] : ev->slot[0];
	int nk = 0;

	if (getenv("DIFF_MEM_TRACE"))
		print_event(t, ev);
	for (int i = 0; i < 2; i++) {
		unk0[i] = nunknown(t, i);
		gone0[i] = (int64_t)vg_monitor_inconclusive_gone(t->mon, i);
		kunk0[i] = (int64_t)t->f.sh->kunknown[i];
		kept0[i] = (int64_t)t->f.sh->kunknown_kept[i];
	}
	ev->pid = (uint32_t)getpid();
	ev->tid = 4243;
	t->f.env.now_ns = ev->time_ns = 1000 + (uint64_t)round;
	ev->seq = (uint64_t)round + 1;

	/* the user tier, as the session feeds it (session_records.c) */
	nmcalls = 0;
	vg_objmap_event(t->um, ev);
	if (vg_monitor_event(t->mon, ev, &e))
		fail_msg("monitor: %s", e.msg);
	vg_objmap_event_done(t->um, ev);

	/* the agent, as inproc/event.c runs it: realloc's old block freed
	 * at its hook's entry (vg_om_entry), a block given out filed before
	 * the step, a block freed after it */
	if (ev->event == t->realloc_ev && ev->slot[0])
		vg_om_free(t->agent, ev->slot[0]);
	if (sp->events[ev->event].kind == VG_EV_AFTER)
		agent_returned(t, ev);
	memcpy(kslot, ev->slot, sizeof(kslot));
	vg_inproc_kstep(&t->f.env, &t->f.plan->events[ev->event].conf,
			(uint32_t)ev->event, kslot,
			sp->events[ev->event].kind == VG_EV_BEFORE);
	if (ev->event == t->free_ev && ev->slot[0])
		vg_om_free(t->agent, ev->slot[0]);

	for (int i = 0; i < nrecs && i < 256; i++) {
		const struct vg_rec_kstep *r = &recs[i];
		const struct mcall *c;

		assert_int_equal(r->h.kind, VG_REC_KSTEP);
		if (r->from == r->to)
			continue;
		if (nk >= nmcalls)
			fail_msg("round %d: the agent took %s:%d->%d, the monitor did not",
				 round, sp->props[r->prop].name, r->from,
				 r->to);
		c = &mcalls[nk++];
		if (c->prop != r->prop || c->from != r->from ||
		    c->to != r->to || c->key != r->key[0])
			fail_msg("round %d: agent %d:%d->%d at %#lx, monitor %d:%d->%d at %#lx",
				 round, r->prop, r->from, r->to,
				 (unsigned long)r->key[0], c->prop, c->from,
				 c->to, (unsigned long)c->key);
		/* the evidence: the variables after the transition */
		for (int v = 0; v < sp->props[c->prop].nvars; v++)
			if (c->vars[v] != r->vars[v])
				fail_msg("round %d: %s -> %s: %s: agent's %ld, monitor's %ld",
					 round, sp->props[c->prop].name,
					 sp->props[c->prop].states[c->to].name,
					 sp->props[c->prop].vars[v].name,
					 (long)r->vars[v], (long)c->vars[v]);
		t->viol[c->prop] += is_violation(&sp->props[c->prop], c->to);
		t->entered[c->prop] |= 1u << c->to;
	}
	if (nk != nmcalls)
		fail_msg("round %d: the monitor took %d steps, the agent %d",
			 round, nmcalls, nk);
	nrecs = 0;

	/* unchecked, and of those, left out of the initial state (the
	 * agent's kept; the monitor's: not gone back to it) */
	for (int i = 0; i < 2; i++) {
		int64_t du = nunknown(t, i) - unk0[i],
			dg = (int64_t)vg_monitor_inconclusive_gone(t->mon, i) -
			     gone0[i],
			dku = (int64_t)t->f.sh->kunknown[i] - kunk0[i],
			dkk = (int64_t)t->f.sh->kunknown_kept[i] - kept0[i];

		if (du != dku || du - dg != dkk)
			fail_msg("round %d: %s: unknown: agent %ld (%ld kept), monitor %ld (%ld gone)",
				 round, sp->props[i].name, (long)dku,
				 (long)dkk, (long)du, (long)dg);
		t->unknown_steps += du != 0;
		t->kept_steps += dkk != 0;
		if (dkk)	/* the monitor marked the slice it kept */
			assert_true(mon_slice(t, i, key).inconclusive);
		compare_slice(t, i, key, round);
	}
}

static uint64_t any_size(void)
{
	static const uint64_t sizes[] = { 0, 1, 5, 16, 24, 40, 64, 100, 128,
					  200 };

	return sizes[rnd(10)];
}

static uint64_t any_count(void)
{
	static const uint64_t counts[] = { 0, 1, 2, 8, 16, 40, 50, 64, 65,
					   100, 151, 200, 300 };

	return counts[rnd(13)];
}

/* a pointer into the heap: a live block (inside, at its end, past it,
 * before it), a freed one, anywhere in a lane (between blocks) */
static uint64_t heap_ptr(struct dm *t)
{
	const struct blk *b;

	if (t->h.nlive && rnd(4)) {
		b = &t->h.live[rnd((uint64_t)t->h.nlive)];
		switch (rnd(5)) {
		case 0: return b->base;
		case 1: return b->base + (b->len ? rnd(b->len) : 0);
		case 2: return b->base + b->len;
		case 3: return b->base + b->len + 1 + rnd(24);
		default: return b->base - 8;
		}
	}
	if (t->h.nfreed && rnd(2))
		return t->h.freed[rnd((uint64_t)t->h.nfreed)].base + 8 * rnd(3);
	return (uintptr_t)t->h.lanes + rnd(LANES) * LANE + 8 * rnd(LANE / 8);
}

/* any pointer, memory neither map knows included (unknown: not for
 * free()); NULL only for free(), whose properties ask nothing of it */
static uint64_t any_ptr(struct dm *t, bool unknown_too)
{
	switch (rnd(unknown_too ? 10 : 8)) {
	/* (inside a global: the agent's map here holds only this test's
	 * globals, vigil's holds every one, the neighbours too) */
	case 0: return (uintptr_t)g_rw + rnd(sizeof(g_rw));
	case 1: return (uintptr_t)g_ro + rnd(sizeof(g_ro));
	case 2: return unknown_too ? heap_ptr(t) : 0;
	case 8: return (uintptr_t)t->stack + rnd(64);
	case 9: return (uintptr_t)t->noread + 16 * rnd(8);
	default: return heap_ptr(t);
	}
}

/* a string to measure: in the lanes (some running past their block),
 * in globals, on the stack, or unreadable */
static uint64_t any_string(struct dm *t)
{
	switch (rnd(8)) {
	case 0: return (uintptr_t)g_str + rnd(sizeof(g_str));
	case 1: return (uintptr_t)g_ro + rnd(sizeof(g_ro));
	case 2: return (uintptr_t)t->stack + rnd(32);
	case 3: return (uintptr_t)t->noread + rnd(64);
	default: return heap_ptr(t);
	}
}

/* Both maps hold every live block of the reference, as it is */
static void check_blocks(struct dm *t, int round)
{
	for (int i = 0; i < t->h.nlive; i++) {
		const struct blk *b = &t->h.live[i];
		struct vg_om_obj ao;
		struct vg_obj uo;

		if (vg_om_lookup(t->agent, b->base, &ao) != VG_OM_FOUND ||
		    ao.kind != VG_OM_HEAP || ao.base != b->base ||
		    ao.len != b->len)
			fail_msg("round %d: the agent's map lost %#lx (%lu bytes): kind %u, %#lx, %lu bytes",
				 round, (unsigned long)b->base,
				 (unsigned long)b->len, ao.kind,
				 (unsigned long)ao.base, (unsigned long)ao.len);
		vg_objmap_lookup(t->um, b->base, &uo);
		if (uo.kind != VG_OBJ_BLOCK || uo.base != b->base ||
		    uo.size != b->len)
			fail_msg("round %d: the user tier's map lost %#lx (%lu bytes): kind %d",
				 round, (unsigned long)b->base,
				 (unsigned long)b->len, uo.kind);
	}
}

/* one random event, the reference following the heap */
static void random_event(struct dm *t, int round)
{
	struct vg_mon_event ev = { 0 };
	uint64_t n, p, q;
	bool fail;
	int i;

	switch (rnd(10)) {
	case 0:
	case 1:			/* malloc(n) returns p, now and then 0 */
		n = any_size();
		p = rnd(16) ? place(&t->h, n) : 0;
		ev.event = t->malloc_ev;
		ev.slot[0] = n;
		ev.slot[VG_SLOT_RET] = p;
		if (p)
			given(&t->h, p, n);
		break;
	case 2:			/* realloc(q, n) returns p */
		q = t->h.nlive && rnd(6) ? t->h.live[rnd((uint64_t)t->h.nlive)].base
				       : 0;
		n = any_size();
		/* failing (a size not 0): not where a block was freed
		 * before. The agent's map would take the block that is
		 * back for the older one (inproc/objmap.c: vg_om_del of
		 * the first freed entry at that base, from the smallest
		 * level), and [q + 16, q + 24) of a 24-byte block that
		 * had a 16-byte one freed at q would be freed memory */
		fail = !rnd(8) && (!q || !n ||
				   !t->h.freed_once[(q - (uintptr_t)t->h.lanes) / 16]);
		forget(&t->h, q);	/* freed at the call's entry */
		p = 0;		/* failed, or realloc(q, 0): q freed */
		if (!fail)
			p = q && rnd(3) && fits(&t->h, q, n) ? q : place(&t->h, n);
		if (!fail && !p && q &&
		    t->h.freed_once[(q - (uintptr_t)t->h.lanes) / 16])
			n = 0;	/* no room: realloc(q, 0) then */
		if (q && !p && n)	/* failed: q is the program's again */
			given(&t->h, q, t->h.freed[--t->h.nfreed].len);
		ev.event = t->realloc_ev;
		ev.slot[0] = q;
		ev.slot[1] = n;
		ev.slot[VG_SLOT_RET] = p;
		if (p)
			given(&t->h, p, n);
		break;
	case 3:			/* free(p): a block, mostly */
		if (t->h.nlive && rnd(3)) {
			i = (int)rnd((uint64_t)t->h.nlive);
			p = t->h.live[i].base;
		} else {
			p = any_ptr(t, false);
		}
		ev.event = t->free_ev;
		ev.slot[0] = p;
		forget(&t->h, p);
		break;
	case 4:
	case 5:			/* str(p, s) */
		ev.event = t->str_ev;
		ev.slot[0] = any_ptr(t, true);
		ev.slot[1] = any_string(t);
		break;
	default:		/* use(p, n) */
		ev.event = t->use_ev;
		ev.slot[0] = any_ptr(t, true);
		ev.slot[1] = any_count();
		break;
	}
	diff_event(t, &ev, round);
	check_blocks(t, round);
}

static void test_differential_mem(void **state)
{
	/* memory neither tier knows: this frame, with a string in it */
	char stack[64] = "a string on the stack";
	struct dm *t = calloc(1, sizeof(*t));

	(void)state;
	assert_non_null(t);
	dm_init(t, stack);
	for (int round = 0; round < 20000; round++)
		random_event(t, round);
	/* the walk entered every state but the initial ones, met unknown
	 * predicates, and unknown ones that left a slice inconclusive in
	 * both properties */
	assert_int_equal(t->entered[0], 0x1e);
	assert_int_equal(t->entered[1], 0x3e);
	assert_true(t->unknown_steps > 100);
	for (int i = 0; i < 2; i++) {
		print_message("%s: %d violations, %lu unknown, %lu kept\n",
			      t->f.spec->props[i].name, t->viol[i],
			      (unsigned long)t->f.sh->kunknown[i],
			      (unsigned long)t->f.sh->kunknown_kept[i]);
		assert_true(t->viol[i] > 50);
		assert_true(t->f.sh->kunknown_kept[i] > 5);
		/* inconclusive at the end in both (the agent's: the
		 * property, once a step kept its slice; the monitor's: the
		 * slices so marked) */
		assert_true(inconclusive_slices(t, i) > 0);
	}
	dm_free(t);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_differential_mem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
