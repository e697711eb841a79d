/* Private to user/load/: a loaded unit as load.c makes it, a checkpoint's
 * state writes it and a restore makes it again (load_state.c), and the
 * unloads of the session's own properties (unload.c). load.h says what a
 * unit is. */
#ifndef VIGIL_LOAD_UNIT_H
#define VIGIL_LOAD_UNIT_H

#include <stdbool.h>

#include <jansson.h>

#include "util/err.h"

struct vg_run;
/* A loaded spec file: its path, -D and --on-violation arguments, and the
 * run the core opened for it (load.c). */
struct vg_loaded;

#define VG_LOAD_MAX 16		/* units at a time */

/* A command answered (the ctl hook's contract, feature/feature.h): text
 * (malloc'ed) into *out, data (or NULL) into *dout; 1 */
int vg_load_answer(char *text, json_t *data, char **out, json_t **dout);

/* A unit from a load's arguments (args: [path, "-D", "N=V",
 * "--on-violation", "P=R", ...]; path:
 * the file, as it is): its spec, checked against the session's
 * properties, opened on the process as it runs now; not yet one of the
 * session's units. NULL (e set) when any of it fails. */
struct vg_loaded *vg_load_unit_open(struct vg_run *ss, const char *path,
				    json_t *args, struct vg_err *e);
/* u's run (its spec, monitor, probes). */
struct vg_run *vg_loaded_run(const struct vg_loaded *u);
/* u closed: its probes detached. NULL: nothing. */
void vg_load_unit_free(struct vg_loaded *u);
/* Every unit of the session forgotten and closed; with room, the
 * session's list of units made if it has none (-1: out of memory). */
int vg_load_units_reset(struct vg_run *ss, bool room, struct vg_err *e);
/* u one of the session's units (after a reset with room), its ring in the
 * loop's epoll set. */
void vg_load_unit_add(struct vg_run *ss, struct vg_loaded *u);
/* Unit k of the session (0, 1, ...), or NULL past the last. */
struct vg_loaded *vg_loaded_at(const struct vg_run *ss, int k);
/* Unit u's -D NAME=VALUE as given, *n of them. */
char *const *vg_load_defs(const struct vg_loaded *u, int *n);
/* Unit u's --on-violation PROP=REACTION as given, *n of them. */
char *const *vg_load_reacts(const struct vg_loaded *u, int *n);

/* unload.c: `vigil unload PROP` of a property the session started with
 * (its answer); the unloaded ones as a checkpoint's state at path says
 * (a line "unloaded PROP" each; before the units' sections): unloaded
 * again, or back from their initial state when the checkpoint was taken
 * before their unload. vg_load_set_gone: the session's own property prop
 * marked unloaded or not (-1: out of memory). */
int vg_unload_own(struct vg_run *ss, const char *name, char **reply,
		  json_t **data, struct vg_err *e);
int vg_unload_restore(struct vg_run *ss, const char *path,
		      struct vg_err *e);
int vg_load_set_gone(struct vg_run *ss, int prop, bool gone);

#endif
