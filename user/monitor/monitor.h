/* The parametric monitor: evaluates every property of a spec over a stream
 * of events, one automaton instance ("slice") per binding of the property's
 * slice parameters, with the join semantics of Chen & Rosu's parametric
 * trace slicing (docs/LANGUAGE.md).
 *
 * It knows nothing about the kernel: events come from the probe layer, from
 * a CSV trace or from a recording, already decoded into struct vg_mon_event.
 * What happens when a slice moves (reports, stop, checkpoint) is the
 * caller's business, through the hooks.
 */
#ifndef VIGIL_MONITOR_H
#define VIGIL_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../spec/spec.h"

struct vg_monitor;

/* One event, decoded. */
struct vg_mon_event {
	int event;			/* index into spec->events */
	uint32_t pid, tid;
	uint64_t time_ns;		/* CLOCK_MONOTONIC; 0 offline */
	uint64_t seq;			/* position in the stream, from 1 */
	uint64_t slot[VG_NSLOTS];	/* fields, VG_SLOT_RET = return value */
};

/* A read-only view of one slice, valid only during the hook call or the
 * vg_monitor_foreach callback. */
struct vg_slice_view {
	int prop;			/* index into spec->props */
	uint32_t mask;			/* which parameters are bound */
	const uint64_t *params;		/* [VG_MAX_PARAMS], valid where mask says */
	int state;
	const int64_t *vars;		/* [prop->nvars] */
	bool inconclusive;		/* may have missed an event */
	int trans;			/* in hook calls: the transition taken
					 * (index into prop->trans); -1 where
					 * not known (foreach, kernel steps) */
};

struct vg_monitor_hooks {
	void *ctx;
	/* Every transition taken, self-loops included, after its update ran.
	 * ev is the event that caused it. */
	void (*transition)(void *ctx, const struct vg_slice_view *s, int from,
			   int to, const struct vg_mon_event *ev);
};

struct vg_monitor_opts {
	/* Properties this monitor evaluates; NULL = all. Properties left out
	 * (e.g. run by the kernel tier) are only mirrored via vg_monitor_set. */
	const bool *evaluate;
	/* Upper bound on live slices per property; 0 = unbounded. Past it, new
	 * slices are refused and counted in stats.slices_refused. */
	uint64_t max_slices;
};

struct vg_monitor_stats {
	uint64_t events;		/* events given to vg_monitor_event */
	uint64_t transitions;
	uint64_t slices_created;
	uint64_t slices_freed;		/* back to initial state and variables */
	uint64_t slices_live;		/* including tombstones */
	uint64_t tombstones;		/* slices in a violation state */
	uint64_t slices_refused;	/* max_slices reached */
	uint64_t bytes;			/* memory the slice store holds */
	uint64_t timeouts;		/* timeouts taken */
	uint64_t timers;		/* timeout entries pending, stale
					 * ones included (timers.c) */
};

struct vg_monitor *vg_monitor_new(const struct vg_spec *spec,
				  const struct vg_monitor_opts *opts,
				  const struct vg_monitor_hooks *hooks,
				  struct vg_err *e);
void vg_monitor_free(struct vg_monitor *m);

/* Feed one event. Returns 0, or -1 with e set on an internal error
 * (out of memory). */
int vg_monitor_event(struct vg_monitor *m, const struct vg_mon_event *ev,
		     struct vg_err *e);

/* Mirror a slice evaluated elsewhere (the kernel tier): set its state and
 * variables, creating it if needed, freeing it if it is back to initial. No
 * hook is called. */
int vg_monitor_set(struct vg_monitor *m, int prop, uint32_t mask,
		   const uint64_t *params, int state, const int64_t *vars,
		   struct vg_err *e);

/* Mark every live slice of a property as possibly having missed an event
 * (lost ring-buffer records): their end verdict becomes inconclusive. */
void vg_monitor_mark_inconclusive(struct vg_monitor *m, int prop);
/* prop cannot see calls that would only have taken its slices to a
 * violation (plan.h, unseen_doubts false): what it ends with, but for
 * violations, is inconclusive; the violations it reports are real */
void vg_monitor_mark_blind(struct vg_monitor *m, int prop);
/* Steps of prop another tier took in which a memory predicate was
 * unknown (the in-process agent's kernel tier counts them): n, as the
 * user tier counts its own (vg_monitor_mem_unknown); kept of them left
 * the slice out of its initial state, which makes the property
 * inconclusive; the others count as slices that went back to it
 * inconclusive (vg_monitor_inconclusive_gone) */
void vg_monitor_add_unknown(struct vg_monitor *m, int prop, uint64_t n,
			    uint64_t kept);

/* Visit every live slice (tombstones included), in no particular order. */
void vg_monitor_foreach(struct vg_monitor *m,
			void (*cb)(void *ctx, const struct vg_slice_view *s),
			void *ctx);

void vg_monitor_stats(const struct vg_monitor *m, struct vg_monitor_stats *st);
/* Live slices of one property, tombstones included (the live view). */
uint64_t vg_monitor_prop_live(const struct vg_monitor *m, int prop);

/* Global variables of a property, [prop->nglobals]. */
const int64_t *vg_monitor_globals(const struct vg_monitor *m, int prop);
/* Set one (restoring a checkpoint's monitor state). */
/* A timeout the kernel tier took (mirrored by vg_monitor_set): counted in
 * the stats' timeouts like the user tier's own. */
void vg_monitor_note_timeout(struct vg_monitor *m);

int vg_monitor_set_global(struct vg_monitor *m, int prop, int idx,
			  int64_t value, struct vg_err *e);

/* The bytecode interpreter, exposed for tests and the offline tools.
 * Runs code[0..] until END; returns the top of stack (1 if empty). */
int64_t vg_vm_run(const struct vg_insn *code, const uint64_t *slot,
		  int64_t *vars, int64_t *globals, uint32_t tid,
		  uint64_t time_ns);

/* ---- additions (kept apart so the original contract above is unchanged) */

/* Has the property lost track of some slice -- a slice refused because
 * opts.max_slices was reached, or vg_monitor_mark_inconclusive -- so that
 * its end verdict is inconclusive? vg_monitor_foreach already reports
 * every slice of such a property as inconclusive. */
bool vg_monitor_prop_inconclusive(const struct vg_monitor *m, int prop);
/* How many of prop's slices were inconclusive (marked, or made while the
 * property was) when they went back to their initial state and were
 * freed: no verdict at the end lists them, yet each may have missed the
 * event that would have made it a violation. */
uint64_t vg_monitor_inconclusive_gone(const struct vg_monitor *m, int prop);

/* How many of prop's events a memory predicate (valid(p, n), ...) left
 * unknown: the object map did not know the pointer's memory (a stack, a
 * mapping of the program's own), so the slice was not checked there
 * and is inconclusive. */
uint64_t vg_monitor_mem_unknown(const struct vg_monitor *m, int prop);

/* Feed n events in order: the same as n calls of vg_monitor_event, but
 * faster on large slice stores (it prefetches the slices of the next
 * events while handling one). Returns 0, or -1 with e set, having stopped
 * at the failing event. */
int vg_monitor_events(struct vg_monitor *m, const struct vg_mon_event *evs,
		      size_t n, struct vg_err *e);

/* Feed one event to property prop alone: a hit of a watchpoint that one
 * of its slices armed (user/watchset/watchset.c), which is that slice's
 * business, not that of other properties watching the same address. */
int vg_monitor_event_prop(struct vg_monitor *m, int prop,
			  const struct vg_mon_event *ev, struct vg_err *e);

/* Mark one slice (prop, bound parameters mask, values params) as possibly
 * having missed events: its verdict becomes inconclusive. False when
 * there is no such slice. */
bool vg_monitor_mark_slice_inconclusive(struct vg_monitor *m, int prop,
					uint32_t mask, const uint64_t *params);

/* What answers the memory predicates (VG_OP_MEM: valid(p, n), ...) for
 * the monitor: the run's object map (user/objmap/), whose structs the
 * monitor never sees. eval: pred (enum vg_mem_pred) of pointer p and
 * length n in process pid; true with *out its value (0/1 for the truth
 * values), false when it does not know p's object: unknown. */
struct vg_mem_oracle {
	void *ctx;
	bool (*eval)(void *ctx, uint32_t pid, int pred, uint64_t p,
		     uint64_t n, int64_t *out);
};

/* The monitor's guards and updates ask it (NULL: every predicate is
 * unknown). A guard that asked a predicate that was unknown does not fire
 * its transition, and the slice is marked inconclusive: it may miss the
 * violation; an update that asked one still runs (its value 0), with the
 * same mark. */
void vg_monitor_set_mem(struct vg_monitor *m, const struct vg_mem_oracle *o);

/* The interpreter with every input, including the slice's parameters for
 * VG_OP_PARAM (vg_vm_run pushes 0 for them). */
struct vg_vm_ctx {
	const struct vg_insn *code;
	uint32_t len;			/* instructions; 0 = until END */
	const uint64_t *slot;		/* [VG_NSLOTS], may be NULL */
	const uint64_t *params;		/* [VG_MAX_PARAMS], may be NULL */
	int64_t *vars;
	uint32_t nvars;			/* bounds; UINT32_MAX = unchecked */
	int64_t *globals;
	uint32_t nglobals;
	uint32_t tid;
	uint64_t time_ns;
	/* VG_OP_MEM: the oracle (NULL: unknown), the event's process, and
	 * where to say that a predicate was unknown (may be NULL). Unknown
	 * sticks: `valid(p, n) || x` is unknown when valid() is, whatever
	 * x; only a side that short-circuit evaluation skips asks nothing. */
	const struct vg_mem_oracle *mem;
	uint32_t pid;
	bool *unknown;
};

/* Returns the top of the stack at END or at the end of the range (1 when
 * empty). A malformed program -- stack under/overflow, unknown opcode,
 * index out of range -- stops and returns 0, as the BPF interpreter does;
 * a jump past the end of the range ends the program like END. */
int64_t vg_vm_exec(const struct vg_vm_ctx *ctx);

/* State timeouts (docs/LANGUAGE.md, Time). vg_monitor_event fires, before
 * the event, every timeout due at or before the event's time; with no
 * event coming, the caller fires those due by `now` (the events' clock:
 * CLOCK_MONOTONIC live, trace time offline). Returns the number of
 * timeouts taken, or -1 with e set. An event of the spec's "timeout" kind
 * (a recording's tick) only does this. */
int vg_monitor_expire(struct vg_monitor *m, uint64_t now, struct vg_err *e);
/* The earliest pending deadline (perhaps of a timeout cancelled since),
 * UINT64_MAX when none: when to wake up for vg_monitor_expire. */
uint64_t vg_monitor_next_deadline(const struct vg_monitor *m);

/* Take a property out of the monitor for good (`vigil unload` of a
 * property the session started with, user/load/unload.c): its
 * slices are freed, its pending timeouts dropped, no event steps it any
 * more, vg_monitor_set ignores it (the kernel tier's table may still hold
 * its slices), and vg_monitor_foreach, vg_monitor_stats and
 * vg_monitor_prop_live no longer see it. Its verdicts are the caller's to
 * report first. A fresh monitor (a restore) has it again. */
void vg_monitor_disable(struct vg_monitor *m, int prop);
bool vg_monitor_prop_disabled(const struct vg_monitor *m, int prop);

#endif
