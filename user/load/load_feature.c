/* `vigil load` and `vigil unload` as a feature of the run
 * (feature/feature.h): their control commands, the units' sections of a
 * checkpoint's monitor state and their restore, the units' verdicts at
 * the end. The state is the run itself: the module keeps its units in
 * the session's slot for them (vg_load_host_state), made at the first
 * load. The core still drains the units with its own records and asks
 * whether one stopped the target (load.h): they are parts of the run. */
#include "load.h"

#include <stdlib.h>
#include <string.h>

#include "feature/feature.h"

static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	*state = run;
	return 0;
}

/* load SPEC ... / unload PROP: their reply ({"ok", "text" or "error",
 * "data"}) as a feature's ctl answers */
static int ctl(void *state, const char *cmd, json_t *args, char **text,
	       json_t **data, struct vg_err *e)
{
	json_t *r, *d;
	int rc;

	if (!strcmp(cmd, "load"))
		r = vg_load_cmd(state, args);
	else if (!strcmp(cmd, "unload"))
		r = vg_unload_cmd(state, args);
	else
		return 0;
	if (!r)
		return vg_errf(e, "out of memory");
	if (json_is_true(json_object_get(r, "ok"))) {
		const char *t = json_string_value(json_object_get(r, "text"));

		*text = t ? strdup(t) : NULL;
		if ((d = json_object_get(r, "data")))
			*data = json_incref(d);
		rc = 1;
	} else {
		rc = vg_errf(e, "%s", json_string_value(json_object_get(r, "error")));
	}
	json_decref(r);
	return rc;
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
