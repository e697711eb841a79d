/* Private to user/session/: `vigil load SPEC` and `vigil unload PROP`
 * (live_load.c), properties added to and removed from a running session.
 *
 * A loaded spec file becomes a unit: a session of its own (its spec, plan,
 * probes, monitor, scenario, report, evidence) on the same process, beside
 * the one the session started with. Its probes are its own uprobe links
 * and its own BPF object (with its own kernel-tier tables when its
 * properties are eligible), so unloading it detaches exactly its probes
 * and no other property's; two properties on the same function are two
 * uprobe consumers there. The main loop drains the units after its own
 * probes; the control channel's commands that take a property find the
 * unit that has it (vg_load_owner). */
#ifndef VIGIL_LIVE_LOAD_H
#define VIGIL_LIVE_LOAD_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "util/err.h"

struct session;
struct vg_scenario;

/* load SPEC [-D NAME=VALUE ...] / unload PROP: the control channel's
 * answers. A failure leaves the session as it was. */
json_t *vg_load_cmd(struct session *ss, json_t *args);
json_t *vg_unload_cmd(struct session *ss, json_t *args);

/* `status` and `probes` (live_cmds.c's replies, r) with the units'
 * properties and probes added; r is returned. */
json_t *vg_load_status(struct session *ss, json_t *r);
json_t *vg_load_probes(struct session *ss, json_t *r);

/* Unit i (0, 1, ...), or NULL past the last. */
struct session *vg_load_unit(struct session *ss, int i);
/* The session whose spec has property name: ss, a unit, or NULL. */
struct session *vg_load_owner(struct session *ss, const char *name);
/* [nprops] of ss's own properties: true for those unloaded since the
 * session started (vigil unload), or NULL when none is; a unit has none. */
const bool *vg_load_gone(const struct session *s);
/* The file unit u was loaded from. */
const char *vg_load_path(const struct session *u);

/* The loop's epoll set: each unit's ring wakes it too (those loaded
 * already and those to come). */
void vg_load_watch(struct session *ss, int ep);
/* A turn of the loop: every unit's records through its monitor, its
 * timeouts, its holds let go; in a live gdb session its stops are kept for
 * gdb (as vg_live_keep_going does for the session's own). */
void vg_load_drain(struct session *ss);
/* The scenario of a unit whose reaction stopped the target and that no
 * live gdb session takes (the session ends then, as for its own), or
 * NULL. */
struct vg_scenario *vg_load_stopped(struct session *ss);
/* Did a property loaded in this session (unloaded since or not) reach a
 * violation? */
bool vg_load_violated(const struct session *ss);

/* Around a CRIU dump: the units' uprobes out and back (probe.h's
 * vg_probe_suspend/resume), and (live_load_state.c) their monitor states
 * after the session's own, each unit's section opened by "loaded FILE"
 * and its -D lines. */
void vg_load_suspend(struct session *ss);
int vg_load_resume(struct session *ss, struct vg_err *e);
int vg_load_write_state(struct session *ss, FILE *out, struct vg_err *e);

/* live_load_state.c: a checkpoint's monitor state at path brought back
 * (vigil restore --monitor; a restore inside the session, after the
 * session's own state): the units become those of its loaded sections,
 * each opened again from its file and -D (on the process as it is now,
 * stopped) and given the section's slices. -1 (e set) when a file cannot
 * be loaded again or has other properties now; the units loaded so far
 * stay. */
int vg_load_restore(struct session *ss, const char *path, struct vg_err *e);

/* live_unload.c: `vigil unload PROP` of a property the session started
 * with (its answer); the unloaded ones as a checkpoint's state at path
 * says (a line "unloaded PROP" each; before the units' sections):
 * unloaded again, or back from their initial state when the checkpoint
 * was taken before their unload. vg_load_set_gone: the session's own
 * property prop marked unloaded or not (-1: out of memory). */
json_t *vg_unload_own(struct session *ss, const char *name);
int vg_unload_restore(struct session *ss, const char *path,
		      struct vg_err *e);
int vg_load_set_gone(struct session *ss, int prop, bool gone);

/* The end of the run: the units' verdicts and counts. */
void vg_load_final(struct session *ss);
/* Every unit closed: its probes detached. */
void vg_load_free(struct session *ss);

#endif
