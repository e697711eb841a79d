/* What the files of the watchset share (user/watchset/watchset.h), private
 * to user/watchset/: watchset_plan.c works out, from the spec and DWARF,
 * how each property finds the memory of each of its watch events;
 * watchset.c arms, shares, evicts and disarms the breakpoints;
 * watchset_hit.c turns their hits into events; the others below. */
#ifndef VIGIL_WATCHSET_INTERNAL_H
#define VIGIL_WATCHSET_INTERNAL_H

#include "watchset.h"

#include "plan/plan.h"
#include "probe/probe.h"

#define MAX_WATCHES 64		/* watches at once: each holds a register,
				 * or shares one */
#define MAX_PENDING 32
#define MAX_CONS 8		/* per-slice watch events one state consumes */
#define MAX_REGS (2 * VG_WATCH_REGS)	/* entries; at most 4 armed */

/* How a property finds one watched location of a slice (the plan's,
 * user/plan/plan.h: the pointer, the members below it, the count) */
struct loc_plan {
	int base;		/* slice parameter or variable index */
	bool base_var;
	enum vg_plan_count count_kind;
	int64_t count;		/* VG_WCOUNT_CONST: the count; else the index */
	struct vg_wp_type ty;
	bool said_partial;
};

/* A property's plan for one per-slice watch event: one location, or the
 * locations of a `change` */
struct plan {
	bool on;
	int nloc;
	struct loc_plan loc[VG_CHANGE_LOCS];
};

struct reg {
	int id;			/* the probe's breakpoint; -1: free */
	struct vg_wp wp;
	uint64_t last;		/* what the location held at the last hit
				 * (or at arming): `old` of the next one */
	int refs;
};

/* a slice's watch on one event, or a global's (for the whole run) */
struct watch {
	bool used, manual;	/* manual: a `watch` reaction asked */
	bool global;
	struct vg_monitor *m;	/* the monitor of its slice */
	int prop, state, event;
	uint32_t mask;
	uint64_t params[VG_MAX_PARAMS];
	int reg[VG_WATCH_REGS], nreg;
	uint64_t seq;		/* arming order: eviction takes the oldest */
	/* change: the last value of each location (location k is reg[k])
	 * and of EXPR */
	int64_t cval[VG_CHANGE_LOCS];
	int64_t clast;
};

struct vg_watchset {
	const struct vg_spec *spec;
	struct vg_probe *probe;
	pid_t pid;
	enum vg_watch_policy policy;
	uint32_t *stop_mask;		/* [nprops] */
	struct vg_plan_gwatch *gwatch;	/* the globals' (the plan's) */
	int ngwatch;
	struct plan *plan;		/* [nprops * nevents] */
	bool *prop_on;			/* [nprops]: has per-slice watches */
	int *state_off;			/* [nprops]: into cons / ncons */
	int (*cons)[MAX_CONS];		/* per state: events it consumes */
	int *ncons;
	/* per property, its per-slice watch events that watch a place
	 * (not `change`): slice_ev[slice_ev_off[p] .. slice_ev_off[p + 1]).
	 * Every transition of a slice visits them; walking every event of
	 * the spec instead was 7% of vigil's time under use_after_free */
	int *slice_ev, *slice_ev_off;
	struct reg reg[MAX_REGS];
	struct watch w[MAX_WATCHES];
	uint64_t seq;
	uint64_t drops;			/* watches dropped, ever: with seq, whether
					 * an acquire changed anything */
	struct {
		struct vg_monitor *m;
		int prop;
		uint32_t mask;
		uint64_t params[VG_MAX_PARAMS];
	} pend[MAX_PENDING];
	int npend;
	uint64_t armed, hits, late, refused, evicted, failed;
	uint64_t cut;	/* watched in part: too few registers free (refuse) */
	struct vg_ws_ranges *ranges;	/* watchset_ranges.c; NULL: none */
	/* events whose probe holds the thread to arm ([nevents]; NULL:
	 * none); the event being fed was such one and was not held (the
	 * probes skipped the hold as futile): what it arms is late */
	bool *holds;
	bool *releases;		/* VG_EVF_UNWATCH events ([nevents]) */
	bool arm_late, futile;
	/* the machine's debug registers do not fire (probe/watch.h): no
	 * per-slice watch is armed, its slice is inconclusive */
	bool no_regs;
	uint64_t unheld, nreleased;	/* ... of them handled */
	uint64_t nreleased_inproc;	/* releases the in-process tier
					 * counted (VG_RF_INPROC) */
	/* the hit being fed came at a uprobe's single step (VG_RF_STEPHIT):
	 * maybe a stale report (QEMU TCG), so its slices end inconclusive;
	 * how many such hits */
	bool step_hit;
	uint64_t step_hits;
	/* the hit being fed is on a block the program was handed again, its
	 * value not read (VG_RF_NOVALUE); how many such hits were still
	 * armed here (a release that did not take the slice out) */
	bool novalue;
	uint64_t novalue_hits;
	bool stale;		/* vg_watchset_set_stale */
	/* watchset_repeat.c: accesses after a violation, per code location */
	struct vg_ws_repeats *reps;
	vg_ws_repeat_fn on_repeat;
	void *repeat_ctx;
	bool repeating;			/* inside on_repeat */
	bool have_key;			/* a watch hit is being fed: */
	uint64_t cur_key;		/* its code location */
	uint64_t repeats;
	/* watchset_quiet.c: what the program told a memory checker not to
	 * report (NULL until its first client request) */
	struct vg_errquiet *quiet;
};

/* watchset.c: EXPR of a change (event ev) over its locations' last
 * values */
int64_t vg_ws_change_value(const struct vg_event *ev, const int64_t *cval);
/* watchset_plan.c */
struct plan *vg_ws_plan(struct vg_watchset *ws, int prop, int event);
/* prop's per-slice watch events of a place (slice_ev): their count, and
 * the first at *ev */
int vg_ws_slice_events(const struct vg_watchset *ws, int prop,
		       const int **ev);
bool vg_ws_consumes(const struct vg_watchset *ws, int prop, int state,
		    int event);
/* The memory slice s needs for location l: [*addr, +*len). False (why
 * says) when it cannot be known. */
bool vg_ws_where(struct vg_watchset *ws, const struct loc_plan *l,
		 const struct vg_slice_view *s, uint64_t *addr,
		 uint64_t *len, const char **why);
/* watchset_ranges.c: the watched blocks by address, for calls */
void vg_ws_ranges_transition(struct vg_watchset *ws, struct vg_monitor *m,
			     const struct vg_slice_view *s, int to);
void vg_ws_ranges_free(struct vg_watchset *ws);
/* len bytes of the target at addr; false when they cannot be read */
bool vg_ws_peek(pid_t pid, uint64_t addr, void *buf, size_t len);
/* watchset_repeat.c: is `state` a violation that keeps its watch (the run
 * goes on past it)? */
bool vg_ws_repeat_state(const struct vg_watchset *ws, int prop, int state);
uint64_t vg_ws_repeat_key(const struct vg_spec *spec,
			  const struct vg_mon_event *ev);
void vg_ws_repeat_transition(struct vg_watchset *ws, struct vg_monitor *m,
			     const struct vg_slice_view *s, int from, int to);
/* a hit on a violation's block: reported when its place is new; false
 * when the slice has no repeat (fed to the monitor as usual) */
bool vg_ws_repeat_hit(struct vg_watchset *ws, struct vg_monitor *m, int prop,
		      uint32_t mask, const uint64_t *params,
		      const struct vg_mon_event *ev, uint64_t key);
void vg_ws_repeats_free(struct vg_watchset *ws);
/* the slice's block was handed out again: no more repeats */
void vg_ws_repeat_forget(struct vg_watchset *ws, struct vg_monitor *m,
			 int prop, uint32_t mask, const uint64_t *params);

/* watchset_quiet.c: is this access one the program silenced (counted
 * then)? A register's piece [lo, hi): any quiet byte; a call's bytes in a
 * block: *at, the first byte not silenced */
bool vg_ws_quiet_hit(struct vg_watchset *ws, const struct vg_monitor *m,
		     const struct vg_mon_event *ev, uint64_t lo, uint64_t hi);
bool vg_ws_quiet_call(struct vg_watchset *ws, const struct vg_monitor *m,
		      const struct vg_mon_event *ev, uint64_t lo, uint64_t hi,
		      uint64_t *at);
/* [lo, hi) was freed: made unaddressable again */
void vg_ws_quiet_freed(struct vg_watchset *ws, const struct vg_monitor *m,
		       uint64_t lo, uint64_t hi);
void vg_ws_quiet_finish(struct vg_watchset *ws, FILE *out);
void vg_ws_quiet_free(struct vg_watchset *ws);

#endif
