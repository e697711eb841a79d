/* Private to live_load.c and live_load_state.c: a loaded unit as a
 * checkpoint's state writes it and a restore makes it again (live_load.h
 * says what a unit is). */
#ifndef VIGIL_LIVE_LOAD_UNIT_H
#define VIGIL_LIVE_LOAD_UNIT_H

#include <stdbool.h>

#include <jansson.h>

#include "util/err.h"

struct session;

#define VG_LOAD_MAX 16		/* units at a time */

/* A unit from a load's arguments (args: [path, "-D", "N=V",
 * "--on-violation", "P=R", ...]; path:
 * the file, as it is): its spec, checked against the session's
 * properties, opened on the process as it runs now; not yet one of the
 * session's units. NULL (e set) when any of it fails. */
struct session *vg_load_unit_open(struct session *ss, const char *path,
				  json_t *args, struct vg_err *e);
/* u closed: its probes detached. */
void vg_load_unit_free(struct session *u);
/* Every unit of the session forgotten and closed; with room, the
 * session's list of units made if it has none (-1: out of memory). */
int vg_load_units_reset(struct session *ss, bool room, struct vg_err *e);
/* u one of the session's units (after a reset with room), its ring in the
 * loop's epoll set. */
void vg_load_unit_add(struct session *ss, struct session *u);
/* One unit u's records through its monitor (as vg_load_drain does for
 * each): vigil watch drains a unit before the session's news of a
 * process reaches it (watch_load.c). */
void vg_load_drain_unit(struct session *ss, struct session *u);
/* Unit u's -D NAME=VALUE as given, *n of them. */
char *const *vg_load_defs(const struct session *u, int *n);
/* Unit u's --on-violation PROP=REACTION as given, *n of them. */
char *const *vg_load_reacts(const struct session *u, int *n);

#endif
