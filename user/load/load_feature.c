/* `vigil load` and `vigil unload` as a feature of the run
 * (feature/feature.h): their control commands, the units' sections of a
 * checkpoint's monitor state and their restore, the units' verdicts at
 * the end. The state is the run itself: the module keeps its units in
 * the session's slot for them (vg_load_host_state), made at the first
 * load. The core still drains the units with its own records and asks
 * whether one stopped the target (load.h): they are parts of the run. */
#include "load.h"

#include <string.h>

#include "feature/feature.h"

static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	*state = run;
	return 0;
}

/* load SPEC ... / unload PROP */
static int ctl(void *state, const char *cmd, json_t *args, char **text,
	       json_t **data, struct vg_err *e)
{
	if (!strcmp(cmd, "load"))
		return vg_load_cmd(state, args, text, data, e);
	if (!strcmp(cmd, "unload"))
		return vg_unload_cmd(state, args, text, data, e);
	return 0;
}

static int save(void *state, FILE *out, struct vg_err *e)
{
	return vg_load_write_state(state, out, e);
}

static int restore(void *state, const char *path, struct vg_err *e)
{
	return vg_load_restore(state, path, e);
}

/* before the last summary: the loaded properties' verdicts */
static void finish(void *state, const struct vg_run_end *end)
{
	vg_load_final(state);
}

const struct vg_feature vg_load_feature = {
	.name = "load",
	.start = start,
	.ctl = ctl,
	.save = save,
	.restore = restore,
	.finish = finish,
};
