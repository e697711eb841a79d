/* vigil agent's reload of a unit whose process stays the same: what
 * changed, spec file by spec file, applied to the running session through
 * its control socket (user/ctl/ctl.h, docs/CONTROL.md) instead of a new
 * session. A spec whose files, defines and reactions are as they were
 * keeps its properties' slices and counts; a changed one is unloaded and
 * loaded again (its properties start from their initial states); a
 * removed one is unloaded, an added one loaded. docs/OPERATIONS.md says
 * when the agent restarts the session instead. */
#ifndef VIGIL_AGENT_RELOAD_H
#define VIGIL_AGENT_RELOAD_H

#include <stdint.h>
#include <sys/types.h>

#include "agent/config.h"
#include "util/err.h"

/* One spec of a unit, as the agent read it when it (re)configured the
 * unit: what its session was given for it. */
struct vg_agent_spec {
	const char *path;	/* the unit's specs[i] */
	uint64_t files;		/* the bytes of it and of the files it includes */
	uint64_t defines;	/* the unit's define lines it declares */
	uint64_t reactions;	/* its properties' reactions */
	int nprops;		/* -1: it could not be read (its session says
				 * why): a change to the unit restarts it */
	char **props;		/* its properties' names */
	char **reacts;		/* [nprops] "PROP=REACTION", as configured */
	const char **defs;	/* the unit's defines it declares */
	int ndefs;
	int checkpoint;		/* a property reacts with a checkpoint */
};

struct vg_agent_specs {
	struct vg_agent_spec s[VG_AGENT_MAX_SPECS];
	int n;
};

/* Every spec of u read (with u's defines): never fails as a whole; a spec
 * that cannot be read gets nprops -1. Out of memory: the same. */
void vg_agent_specs_read(const struct vg_agent_unit *u,
			 struct vg_agent_specs *out);
void vg_agent_specs_free(struct vg_agent_specs *sp);

/* Said of each step, for the agent's log (VIGIL_EVENT=reload). */
typedef void (*vg_agent_note)(void *ctx, const char *msg);

/* The changes from old to now applied to the session whose vigil is
 * session (its control socket): 0 (*changed: specs unloaded or loaded),
 * or -1 with e saying why it could not be done in place (then the
 * session is to be restarted; what was done until then is noted). */
int vg_agent_reload_specs(pid_t session, const char *unit,
			  const struct vg_agent_specs *old,
			  const struct vg_agent_specs *now, int *changed,
			  vg_agent_note note, void *ctx, struct vg_err *e);

#endif
