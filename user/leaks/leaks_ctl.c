/* The leak check's control command (leaks.h): `vigil ctl PID leaks
 * [KINDS]` and gdb's `vigil leaks`, over leaks.c's check, answered with
 * the contract of a feature's ctl hook (feature/feature.h), as the
 * session's control channel asks it. */
#include "leaks.h"
#include "leaks_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text as the answer's text, the JSON line as its data. gdb, which
 * holds the threads (vigil cannot seize them for their registers then),
 * sends their registers' values after "regs". */
int vg_leaks_ctl(struct vg_leaks *l, const char *cmd, json_t *args,
		 char **text, json_t **data, struct vg_err *e)
{
	const char *kinds;
	unsigned show, want = 0;
	size_t nargs, nregs = 0;
	uint64_t *regs = NULL;
	char *txt = NULL, *js = NULL;
	size_t tlen = 0, jlen = 0;
	FILE *t = NULL, *j = NULL;
	int rc = -1;

	if (!l || strcmp(cmd, "leaks"))
		return 0;
	kinds = json_string_value(json_array_get(args, 0));
	show = l->show;
	nargs = json_array_size(args);
	regs = calloc(nargs + 1, sizeof(uint64_t));
	t = open_memstream(&txt, &tlen);
	j = open_memstream(&js, &jlen);
	if (kinds && !strcmp(kinds, "regs"))
		kinds = NULL;
	for (size_t i = 0, in = 0; regs && i < nargs; i++) {
		const char *a = json_string_value(json_array_get(args, i));

		if (in && a)
			regs[nregs++] = strtoull(a, NULL, 0);
		in |= a && !strcmp(a, "regs");
	}
	if (!regs) {
		vg_errf(e, "out of memory");
		goto out;
	}
	if (kinds && vg_leak_kinds_parse(kinds, &want)) {
		vg_errf(e, "usage: leaks [KINDS]: a list of definite, indirect, possible, reachable, or all");
		goto out;
	}
	if (!t || !j) {
		vg_errf(e, "out of memory");
		goto out;
	}
	/* KINDS are this answer's only: the next check shows the run's */
	if (want)
		l->show = want;
	rc = vg_leaks_check(l, "on demand", t, j, regs, nregs, e);
	l->show = show;
	fclose(t);
	fclose(j);
	t = j = NULL;
	if (rc)
		goto out;
	*data = json_loads(js, 0, NULL);
	*text = txt;
	txt = NULL;
	rc = 1;
out:
	if (t)
		fclose(t);
	if (j)
		fclose(j);
	free(txt);
	free(js);
	free(regs);
	return rc;
}
