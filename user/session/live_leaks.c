/* The leak check's control command (live.h): `vigil ctl PID leaks
 * [KINDS]` and gdb's `vigil leaks`, over session/leaks.c's check. */
#include "live.h"
#include "leaks.h"
#include "session_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `vigil ctl PID leaks [KINDS]`, gdb's `vigil leaks`: the text as the
 * answer's text, the JSON line as its data. gdb, which holds the threads
 * (vigil cannot seize them for their registers then), sends their
 * registers' values after "regs". */
json_t *vg_live_leaks(struct session *ss, json_t *args)
{
	const char *kinds = json_string_value(json_array_get(args, 0));
	unsigned show = vg_session_leaks_show(ss, 0), want = 0;
	size_t nargs = json_array_size(args), nregs = 0;
	uint64_t *regs = calloc(nargs + 1, sizeof(uint64_t));
	char *text = NULL, *js = NULL;
	size_t tlen = 0, jlen = 0;
	FILE *t = open_memstream(&text, &tlen), *j = open_memstream(&js, &jlen);
	struct vg_err e = { 0 };
	json_t *r, *data = NULL;
	int rc;

	if (kinds && !strcmp(kinds, "regs"))
		kinds = NULL;
	for (size_t i = 0, in = 0; regs && i < nargs; i++) {
		const char *a = json_string_value(json_array_get(args, i));

		if (in && a)
			regs[nregs++] = strtoull(a, NULL, 0);
		in |= a && !strcmp(a, "regs");
	}
	if (!regs) {
		r = vg_live_reply(false, "out of memory", NULL);
		goto out;
	}
	if (kinds && vg_leak_kinds_parse(kinds, &want)) {
		r = vg_live_reply(false, "usage: leaks [KINDS]: a list of definite, indirect, possible, reachable, or all", NULL);
		goto out;
	}
	if (!t || !j) {
		r = vg_live_reply(false, "out of memory", NULL);
		goto out;
	}
	vg_session_leaks_show(ss, want);
	rc = vg_session_leak_check(ss, "on demand", t, j, regs, nregs, &e);
	vg_session_leaks_show(ss, show);
	fclose(t);
	fclose(j);
	t = j = NULL;
	if (rc) {
		r = vg_live_reply(false, e.msg, NULL);
		goto out;
	}
	data = json_loads(js, 0, NULL);
	r = vg_live_reply(true, text, data);
out:
	if (t)
		fclose(t);
	if (j)
		fclose(j);
	free(text);
	free(js);
	free(regs);
	return r;
}
