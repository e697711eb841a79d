/* Private to user/live/: the live side's state (struct vg_live) and what
 * its files share: the commands that read or set the monitor
 * (live_cmds.c, live_graph.c, live_returns.c), each answering with a
 * response object ({"ok":..,"text":..,"data":..}). */
#ifndef VIGIL_LIVE_INTERNAL_H
#define VIGIL_LIVE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "live.h"
#include "feature/feature.h"

#define VG_LIVE_BREAKS 32
#define VG_LIVE_STOPS 16
#define VG_LIVE_MARKS 32	/* the run and its `vigil load` parts */

struct vg_ctl;

struct vg_live_stop {
	pid_t pid, tid;
	char msg[1024];
	json_t *violation;	/* the violation report, or NULL */
};

/* The slice a reaction's stop is about, until the live side keeps that
 * stop for gdb (vg_live_keep_going; `vigil graph` marks its state): one
 * per part, the first transition of a drain that had a reaction stop the
 * target. */
struct vg_live_mark {
	const struct vg_run *owner;
	int prop, state;
	char slice[256];
};

struct vg_live {
	struct vg_ctl *ctl;	/* NULL once closed */
	struct {
		int id, prop, state;
		/* the run, or vigil load's part, prop is of */
		const struct vg_run *owner;
	} brk[VG_LIVE_BREAKS];
	int nbrk, next_brk;
	struct vg_live_stop stops[VG_LIVE_STOPS];
	int nstops;
	int gdb_client;		/* the connection of gdb's extension, or -1 */
	bool opened;		/* a `gdb` reaction opened a live session */
	bool keep_stopped;	/* gdb gone: leave the target stopped */
	bool keep_stopped_at_end;	/* it went, after `vigil keep-stopped` */
	bool detach;
	pid_t gdb_pid;		/* the gdb --interactive started on a terminal */
	struct vg_live_mark marks[VG_LIVE_MARKS];
	int nmarks;
	/* the last stop made for gdb (`vigil graph` marks its state): the
	 * run or part whose property it was about */
	const struct vg_run *last_owner;
	int last_prop, last_state;
	char last_slice[256];
	/* a reaction's checkpoint waiting for gdb to let go of the target
	 * (vg_live_want_checkpoint); in_query: asked during a stop query,
	 * whose answer says so at once */
	struct {
		bool wanted, good, in_query;
		char reason[256];
	} ckpt;
};

/* The gdb command file that joins this live session (stdout of
 * `vigil run --interactive` off a terminal, or exec'd on one). */
int vg_live_gdb_command(struct vg_run *r, char *cmd, size_t len,
			struct vg_err *e);
/* why a stop was made, and the range of the violation vigil wrote for
 * process pid when it has one (a memory check's: the object and the
 * overrun), as gdb says it at the stop and at a hand-off */
void vg_live_stop_line(pid_t pid, const char *why, char *buf, size_t len);
/* A response object of the control channel: {"ok":..,"text":..,"data":..}
 * ("error" instead of "text" when not ok). */
json_t *vg_live_reply(bool ok, const char *text, json_t *data);
/* The property of part r named name (not unloaded), or -1. */
int vg_live_prop(const struct vg_run *r, const char *name);
/* The part's monitor of the target (vg_run_monitors' first) */
struct vg_monitor *vg_live_monitor(const struct vg_run *r);
/* Part k of run r (0: r itself, then `vigil load`'s), or NULL past the
 * last */
struct vg_run *vg_live_part(struct vg_run *r, int k);

/* A failed reply, its text fmt with a and b (NULL: "") */
json_t *vg_live_errf(const char *fmt, const char *a, const char *b);
/* live_breaks.c: `vigil break PROPERTY STATE`, `delete ID`, `breaks` */
json_t *vg_live_break(struct vg_run *r, json_t *args);
json_t *vg_live_delete(struct vg_run *r, json_t *args);
json_t *vg_live_breaks(struct vg_run *r);
/* live_cmds.c: slices, show, set of one part */
json_t *vg_live_slices(struct vg_run *r, json_t *args);
json_t *vg_live_show(struct vg_run *r, json_t *args);
json_t *vg_live_set(struct vg_run *r, json_t *args);
/* live_graph.c: the automata, the last stop's state marked */
json_t *vg_live_graph(struct vg_run *r, json_t *args);
/* The last stop kept for gdb: the part whose property it was about, the
 * property, the state its slice entered, the slice; false when there was
 * none. */
bool vg_live_last_stop(const struct vg_run *r, const struct vg_run **owner,
		       int *prop, int *state, const char **slice);
/* live_returns.c: the pending return addresses (`returns`); and putting
 * the trampoline back where gdb's extension left real ones (gdb gone) */
json_t *vg_live_returns(struct vg_run *r);
void vg_live_mend_returns(struct vg_run *r);
/* Its state named name, or -1. */
int vg_live_state(const struct vg_run *r, int prop, const char *name);
/* "q=0x55d1c0a012a0": a slice's bound parameters, as `slices` lists them
 * and `show`/`set` take them. */
void vg_live_slice_name(const struct vg_run *r, const struct vg_slice_view *s,
			char *out, size_t len);

/* Slices counted per state, flattened as report/dot.h's vg_dot_index
 * (per_state: vg_dot_nstates entries): a slice callback's context
 * (live_cmds.c; `status` and `graph` count so) */
struct vg_live_counts {
	const struct vg_spec *spec;
	uint64_t *per_state;
};
void vg_live_count_slice(void *ctx, const struct vg_slice_view *s);

#endif
