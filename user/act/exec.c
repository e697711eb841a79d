#include "exec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/proc.h"
#include "report/report.h"
#include "util/json.h"

/* "q=0x5614 i=3" and {"q":"0x5614","i":3} */
static void describe_slice(const struct vg_spec *spec,
			   const struct vg_slice_view *s, char *text,
			   size_t tlen, FILE *json)
{
	const struct vg_property *p = &spec->props[s->prop];
	size_t used = 0;
	char v[128];

	text[0] = 0;
	fputc('{', json);
	for (int i = 0, n = 0; i < p->nparams; i++) {
		if (!(s->mask >> i & 1))
			continue;
		vg_format_value(spec, p->param_types[i], s->params[i], v,
				sizeof(v));
		if (used < tlen)
			used += snprintf(text + used, tlen - used, "%s%s=%s",
					 n ? " " : "", p->params[i], v);
		fprintf(json, "%s", n++ ? "," : "");
		vg_json_str(json, p->params[i]);
		fputc(':', json);
		vg_json_value(json, p->param_types[i], v);
	}
	fputc('}', json);
}

int vg_act_exec(const char *cmd, const struct vg_spec *spec, pid_t pid,
		const struct vg_slice_view *s, const struct vg_mon_event *ev,
		struct vg_err *e)
{
	const struct vg_property *p = &spec->props[s->prop];
	char slice[1024], num[32], *json = NULL;
	size_t jlen = 0;
	FILE *j = open_memstream(&json, &jlen);
	pid_t child;

	if (!j)
		return vg_errf(e, "exec: out of memory");
	fputs("{\"type\":\"exec\",\"property\":", j);
	vg_json_str(j, p->name);
	fputs(",\"state\":", j);
	vg_json_str(j, p->states[s->state].name);
	fputs(",\"slice\":", j);
	describe_slice(spec, s, slice, sizeof(slice), j);
	fprintf(j, ",\"pid\":%d,\"tid\":%u,\"time_ns\":%llu}", pid, ev->tid,
		(unsigned long long)ev->time_ns);
	fclose(j);

	/* twice forked, so the command is nobody's zombie: vigil reaps only
	 * the middle child, at once */
	child = fork();
	if (child < 0) {
		free(json);
		return vg_errf(e, "exec: fork: %s", strerror(errno));
	}
	if (child == 0) {
		if (fork() != 0)
			_exit(0);
		vg_proc_unblock_signals();
		dup2(2, 1);
		snprintf(num, sizeof(num), "%d", pid);
		setenv("VIGIL_PID", num, 1);
		snprintf(num, sizeof(num), "%u", ev->tid);
		setenv("VIGIL_TID", num, 1);
		setenv("VIGIL_PROPERTY", p->name, 1);
		setenv("VIGIL_STATE", p->states[s->state].name, 1);
		setenv("VIGIL_SLICE", slice, 1);
		setenv("VIGIL_JSON", json, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	free(json);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}
