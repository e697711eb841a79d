/* `vigil load SPEC` and `vigil unload PROP`: properties added to and
 * removed from a running session (load.c, load_state.c, unload.c).
 *
 * A loaded spec file becomes a unit: a part of the run of its own (its
 * spec, plan, probes, monitor, scenario, report, evidence) on the same
 * process, beside the one the session started with. Its probes are its
 * own uprobe links and its own BPF object (with its own kernel-tier
 * tables when its properties are eligible), so unloading it detaches
 * exactly its probes and no other property's; two properties on the same
 * function are two uprobe consumers there. The main loop drains the units
 * after its own probes; the control channel's commands that take a
 * property find the unit that has it (vg_load_owner).
 *
 * This module owns the list of units, their files, -D and --on-violation
 * arguments, the load and unload commands, the unloads of the session's
 * own properties, the units' sections of a checkpoint's state and their
 * restore. It sees the session and each unit as a struct vg_run only
 * (feature/feature.h's vg_run_* calls), and asks the core to open, drain
 * and close a unit's run through the vg_load_host_* calls at the end of
 * this header, which user/session/load_host.c implements: this folder
 * includes nothing of user/session/. Its state is one opaque struct
 * vg_load, the session's one field for it, made at first need. */
#ifndef VIGIL_LOAD_H
#define VIGIL_LOAD_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "util/err.h"

struct vg_load;
struct vg_feature;
struct vg_run;
struct vg_scenario;
struct vg_spec;

/* load SPEC [-D NAME=VALUE ...] / unload PROP: the control channel's
 * answers. A failure leaves the session as it was. */
int vg_load_cmd(struct vg_run *ss, json_t *args, char **reply,
		json_t **data, struct vg_err *e);
int vg_unload_cmd(struct vg_run *ss, json_t *args, char **reply,
		  json_t **data, struct vg_err *e);

/* `status` and `probes` (the control channel's replies, r) with the
 * units' properties and probes added; r is returned. */
json_t *vg_load_status(struct vg_run *ss, json_t *r);
json_t *vg_load_probes(struct vg_run *ss, json_t *r);

/* Unit i (0, 1, ...), or NULL past the last. */
struct vg_run *vg_load_unit(const struct vg_run *ss, int i);
/* The run whose spec has property name: ss, a unit, or NULL. */
struct vg_run *vg_load_owner(struct vg_run *ss, const char *name);
/* [nprops] of ss's own properties: true for those unloaded since the
 * session started (vigil unload), or NULL when none is; a unit has none. */
const bool *vg_load_gone(const struct vg_run *ss);
/* The file unit u was loaded from. */
const char *vg_load_path(const struct vg_run *u);

/* The loop's epoll set: each unit's ring wakes it too (those loaded
 * already and those to come). */
void vg_load_watch(struct vg_run *ss, int ep);
/* A turn of the loop: every unit's records through its monitor, its
 * timeouts, its holds let go; in a live gdb session its stops are kept for
 * gdb (as the live side does for the session's own). */
void vg_load_drain(struct vg_run *ss);
/* One unit u's records through its monitor (as vg_load_drain does for
 * each): vigil watch drains a unit before the session's news of a
 * process reaches it (watch_load.c). */
void vg_load_drain_unit(struct vg_run *ss, struct vg_run *u);
/* The scenario of a unit whose reaction stopped the target and that no
 * live gdb session takes (the session ends then, as for its own), or
 * NULL. */
struct vg_scenario *vg_load_stopped(struct vg_run *ss);
/* Did a property loaded in this session (unloaded since or not) reach a
 * violation? */
bool vg_load_violated(const struct vg_run *ss);

/* Around a CRIU dump: the units' uprobes out and back (probe.h's
 * vg_probe_suspend/resume), and (load_state.c) their monitor states
 * after the session's own, each unit's section opened by "loaded FILE"
 * and its -D lines. */
void vg_load_suspend(struct vg_run *ss);
int vg_load_resume(struct vg_run *ss, struct vg_err *e);
int vg_load_write_state(struct vg_run *ss, FILE *out, struct vg_err *e);

/* load_state.c: a checkpoint's monitor state at path brought back
 * (vigil restore --monitor; a restore inside the session, after the
 * session's own state): the session's own properties unloaded or back as
 * its "unloaded" lines say (unload.c), and the units become those of its
 * loaded sections, each opened again from its file and -D (on the
 * process as it is now, stopped) and given the section's slices. -1 (e
 * set) when a file cannot be loaded again or has other properties now;
 * the units loaded so far stay. */
int vg_load_restore(struct vg_run *ss, const char *path, struct vg_err *e);

/* The end of the run: the units' verdicts and counts. */
void vg_load_final(struct vg_run *ss);
/* Every unit closed: its probes detached; the module's state freed. */
void vg_load_free(struct vg_run *ss);

/* --- what the load module asks of the core (user/session/load_host.c) --
 *
 * ss is the session, part a unit's run made by vg_load_host_open_part. */

/* The session's one field for this module's state (NULL until made). */
struct vg_load **vg_load_host_state(const struct vg_run *ss);
/* How the session runs: what a load or an unload may not undo. */
struct vg_load_host_how {
	bool follow_forks;	/* --follow-fork or vigil watch */
	bool watch;		/* vigil watch */
	bool dynamic;		/* --dynamic */
};
void vg_load_host_how(const struct vg_run *ss, struct vg_load_host_how *h);

/* A run of spec's properties on the session's process, as the session's
 * own are opened (plan, report, evidence, monitor, scenario, probes,
 * attached to the running process as `vigil attach` does), with the
 * session's options; path is the file it came from, for its messages
 * ("vigil: loaded PROP from PATH: ..."). The part owns spec from this
 * call on, whether it succeeds or not. NULL (e set) when any of it
 * fails: what was opened is closed again. */
struct vg_run *vg_load_host_open_part(struct vg_run *ss, struct vg_spec *spec,
				      const char *path, struct vg_err *e);
/* part closed: its probes detached, its monitor, report and spec freed;
 * the features forget it. NULL: nothing. */
void vg_load_host_close_part(struct vg_run *part);
/* The file part was loaded from, as vg_load_host_open_part was given. */
const char *vg_load_host_part_path(const struct vg_run *part);
/* The processes part monitors (vigil watch's), gone ones too. */
int vg_load_host_part_processes(const struct vg_run *part);

/* part's records through its monitor, its timeouts, its holds let go,
 * its stops kept for a live gdb session (whose gdb becomes the
 * session's); its errors said on stderr. */
void vg_load_host_drain_part(struct vg_run *ss, struct vg_run *part);
/* part's scenario saw a violation */
bool vg_load_host_part_violated(const struct vg_run *part);
/* part's scenario when its reaction left the target stopped, or NULL */
struct vg_scenario *vg_load_host_part_stopped(const struct vg_run *part);
/* part's verdicts and its summary line (label before it): at the end of
 * the run or at its unload. true when its report has a violation. */
bool vg_load_host_part_final(struct vg_run *part, const char *label);

/* part's slices and globals into out, as a checkpoint's monitor state
 * (ckpt/ckpt.h's vg_monstate_write), and back from the state file at
 * path (vg_monstate_load). */
int vg_load_host_part_write_state(struct vg_run *part, FILE *out,
				  struct vg_err *e);
int vg_load_host_part_read_state(struct vg_run *part, const char *path,
				 struct vg_err *e);

/* The control channel's `status` and `probes` replies of part alone (its
 * kernel slices copied into its monitor first, for status). */
json_t *vg_load_host_part_status(struct vg_run *part);
json_t *vg_load_host_part_probes(struct vg_run *part);
/* Under a live gdb session, part's user-tier stops (of ss itself: the
 * session's own) hold their events; part gone: the live side forgets
 * its breakpoints and stops. */
int vg_load_host_push_holds(struct vg_run *ss, struct vg_run *part,
			    struct vg_err *e);
void vg_load_host_forget_part(struct vg_run *ss, struct vg_run *part);

/* The session's own property prop (vigil unload of one it started with):
 * settle: everything sent so far through the monitor, its kernel slices
 * copied in; report_unload: its verdicts and summary (each of vigil
 * watch's processes' first); unload_prop: its breakpoints deleted, out of
 * the probes and of every monitor; restore_prop: out of the probes and
 * the monitor (gone) or back into the probes, as a checkpoint's state
 * says. */
void vg_load_host_settle(struct vg_run *ss);
void vg_load_host_report_unload(struct vg_run *ss, int prop,
				const char *label);
int vg_load_host_unload_prop(struct vg_run *ss, int prop, struct vg_err *e);
int vg_load_host_restore_prop(struct vg_run *ss, int prop, bool gone,
			      struct vg_err *e);

/* The commands, the checkpoint sections and the end as a feature of the
 * run (load_feature.c) */
extern const struct vg_feature vg_load_feature;

#endif
