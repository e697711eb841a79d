/* `returns` on the control socket: the pending return addresses of the
 * target's threads (bpf/returns.bpf.h), for gdb's extension to show the
 * real callers of functions with an `after` probe
 * (scripts/gdb/vigil_returns.py); and, when gdb went away before it put
 * the trampoline's addresses back, vigil puts them back. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "live_internal.h"
#include "probe/returns.h"

json_t *vg_live_returns(struct vg_run *run)
{
	struct vg_pending_ret *r = calloc(4096, sizeof(*r));
	struct vg_err e = { 0 };
	json_t *arr, *res;
	char text[128];
	int n;

	if (!r)
		return vg_live_reply(false, "out of memory", NULL);
	if ((n = vg_probe_returns(vg_run_probe(run), vg_run_pid(run), r, 4096, &e)) < 0) {
		free(r);
		return vg_live_reply(false, e.msg, NULL);
	}
	arr = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:i,s:I,s:I,s:b}",
			"tid", (int)r[i].tid, "slot", (json_int_t)r[i].slot,
			"ret", (json_int_t)r[i].ret, "chained", r[i].chained != 0));
	free(r);
	snprintf(text, sizeof(text), "%d pending returns\n", n);
	res = json_pack("{s:o,s:I}", "returns", arr, "trampoline",
			(json_int_t)vg_returns_trampoline(vg_run_pid(run)));
	return vg_live_reply(true, text, res);
}

void vg_live_mend_returns(struct vg_run *r)
{
	int n = vg_returns_mend(vg_run_probe(r), vg_run_pid(r), false);

	if (n > 0)
		fprintf(stderr, "vigil: gdb went away: %d return address%s put back to the uretprobe trampoline\n",
			n, n == 1 ? "" : "es");
}
