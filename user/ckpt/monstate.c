#include "ckpt.h"

#include "monitor/monitor.h"
#include "probe/probe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/lines.h"

/* the longest line of a monitor state: a slice line of 64 variables is
 * under 2 KiB */
#define MONSTATE_LINE_MAX 16384

struct writer {
	FILE *out;
	const struct vg_spec *spec;
	const bool *kernel;
	const struct vg_monitor *mon;
};

static void put_slice(FILE *out, const struct vg_property *p, uint32_t mask,
		      const uint64_t *params, int state, bool inconc,
		      const int64_t *vars)
{
	fprintf(out, "slice %s %u %s %d", p->name, mask, p->states[state].name,
		inconc);
	for (int i = 0; i < VG_MAX_PARAMS; i++)
		fprintf(out, " %" PRIu64,
			(mask >> i & 1) && i < p->nparams ? params[i] : 0);
	for (int i = 0; i < p->nvars; i++)
		fprintf(out, " %" PRId64, vars ? vars[i] : p->vars[i].init);
	fputc('\n', out);
}

static void user_slice(void *ctx, const struct vg_slice_view *s)
{
	struct writer *w = ctx;

	/* kernel-tier slices are mirrored only in part: the map is the truth */
	if (w->kernel && w->kernel[s->prop])
		return;
	put_slice(w->out, &w->spec->props[s->prop], s->mask, s->params,
		  s->state, s->inconclusive, s->vars);
}

static void kernel_slice(void *ctx, int prop, const uint64_t *key, int state,
			 const int64_t *vars)
{
	struct writer *w = ctx;
	const struct vg_property *p = &w->spec->props[prop];
	uint64_t params[VG_MAX_PARAMS] = { key[0], key[1] };

	/* an unloaded property's slices stay in the table, unread
	 * (probe_unload.c): not its state any more */
	if (vg_monitor_prop_disabled(w->mon, prop))
		return;
	put_slice(w->out, p, (1u << p->nparams) - 1, params, state, false,
		  vars);
}

int vg_monstate_write(FILE *out, const struct vg_spec *spec,
		      struct vg_monitor *mon, const struct vg_probe *probe,
		      const bool *kernel, struct vg_err *e)
{
	struct writer w = { out, spec, kernel, mon };

	fprintf(out, "vigil-monitor-state 1\n");
	vg_monitor_foreach(mon, user_slice, &w);
	if (probe)
		vg_probe_foreach_kslice(probe, kernel_slice, &w);
	for (int i = 0; i < spec->nprops; i++) {
		const int64_t *g = vg_monitor_prop_disabled(mon, i) ? NULL
					: vg_monitor_globals(mon, i);

		for (int k = 0; g && k < spec->props[i].nglobals; k++)
			fprintf(out, "global %s %d %" PRId64 "\n",
				spec->props[i].name, k, g[k]);
	}
	if (ferror(out))
		return vg_errf(e, "writing the monitor state: %s",
			       strerror(errno));
	return 0;
}

struct proc_writer {
	struct writer w;
	pid_t tgid;
};

static void kernel_slice_of(void *ctx, pid_t tgid, int prop,
			    const uint64_t *key, int state, const int64_t *vars)
{
	struct proc_writer *pw = ctx;

	if (tgid == pw->tgid)
		kernel_slice(&pw->w, prop, key, state, vars);
}

int vg_monstate_write_proc(FILE *out, const struct vg_spec *spec,
			   struct vg_monitor *mon, const struct vg_probe *probe,
			   const bool *kernel, pid_t tgid, struct vg_err *e)
{
	struct proc_writer pw = { { out, spec, kernel, mon }, tgid };

	/* the user tier's slices and every global are the process's
	 * monitor's: vg_monstate_write without the kernel table, whose
	 * slices of this process come after (the reader takes the lines in
	 * any order) */
	if (vg_monstate_write(out, spec, mon, NULL, kernel, e))
		return -1;
	if (probe && vg_probe_foreach_kslice_proc(probe, kernel_slice_of, &pw))
		return vg_errf(e, "reading the kernel tier's slices of pid %d",
			       tgid);
	if (ferror(out))
		return vg_errf(e, "writing the monitor state: %s",
			       strerror(errno));
	return 0;
}

static int find_prop(const struct vg_spec *spec, const char *name)
{
	for (int i = 0; i < spec->nprops; i++)
		if (!strcmp(spec->props[i].name, name))
			return i;
	return -1;
}

/* One "slice" line after its keyword. */
static int load_slice(char *rest, const struct vg_spec *spec,
		      struct vg_monitor *mon, struct vg_probe *probe,
		      const bool *kernel, const char *where, struct vg_err *e)
{
	char *save, *tok = strtok_r(rest, " \n", &save);
	uint64_t params[VG_MAX_PARAMS];
	int64_t vars[VG_KMAX_VARS > 64 ? VG_KMAX_VARS : 64] = { 0 };
	const struct vg_property *p;
	int prop, state, inconc;
	uint32_t mask;

	prop = tok ? find_prop(spec, tok) : -1;
	if (prop < 0)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s: property '%s' is not in the specs given (the checkpoint was taken with other specs)",
				    where, tok ? tok : "");
	p = &spec->props[prop];
	tok = strtok_r(NULL, " \n", &save);
	mask = tok ? (uint32_t)strtoul(tok, NULL, 10) : 0;
	tok = strtok_r(NULL, " \n", &save);
	state = tok ? vg_property_find_state(p, tok) : -1;
	if (state < 0)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s: property %s has no state '%s'", where,
				    p->name, tok ? tok : "");
	tok = strtok_r(NULL, " \n", &save);
	inconc = tok ? atoi(tok) : 0;
	for (int i = 0; i < VG_MAX_PARAMS; i++) {
		tok = strtok_r(NULL, " \n", &save);
		params[i] = tok ? strtoull(tok, NULL, 10) : 0;
	}
	for (int i = 0; i < p->nvars && i < 64; i++) {
		tok = strtok_r(NULL, " \n", &save);
		if (!tok)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s: property %s: %d variables expected",
					    where, p->name, p->nvars);
		vars[i] = strtoll(tok, NULL, 10);
	}
	if (kernel && kernel[prop]) {
		if (!probe)
			return vg_errf(e, "%s: no kernel tier to restore %s into",
				       where, p->name);
		return vg_probe_set_kslice(probe, prop, params, state, vars, e);
	}
	if (vg_monitor_set(mon, prop, mask, params, state, vars, e))
		return -1;
	if (inconc)
		vg_monitor_mark_inconclusive(mon, prop);
	return 0;
}

int vg_monstate_load(const char *path, const struct vg_spec *spec,
		     struct vg_monitor *mon, struct vg_probe *probe,
		     const bool *kernel, struct vg_err *e)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, where[4200];
	size_t cap = 0, len;
	int n = 0, rc = 0, r;

	if (!f)
		return vg_errf(e, "cannot read %s: %s", path, strerror(errno));
	/* bounded: a line longer than any this file has is not one */
	while (!rc && (r = vg_read_line(f, &line, &cap, MONSTATE_LINE_MAX,
					&len)) != 0) {
		ssize_t bad;

		n++;
		snprintf(where, sizeof(where), "%s:%d", path, n);
		if (r < 0) {
			rc = vg_errf_code(e, VG_EXIT_USAGE,
					  "%s: line longer than %d bytes: not a vigil monitor state",
					  where, MONSTATE_LINE_MAX);
			break;
		}
		if ((bad = vg_not_text(line, len)) >= 0) {
			rc = vg_errf_code(e, VG_EXIT_USAGE,
					  "%s:%zd: byte 0x%02x: not a vigil monitor state",
					  where, bad + 1, (unsigned char)line[bad]);
			break;
		}
		if (n == 1) {
			if (strcmp(line, "vigil-monitor-state 1"))
				rc = vg_errf_code(e, VG_EXIT_USAGE,
						  "%s: not a vigil monitor state (version 1)",
						  where);
		} else if (!strncmp(line, "loaded ", 7)) {
			/* the sections of properties added with vigil load
			 * (user/load/load_state.c) come last: not this
			 * spec's */
			break;
		} else if (!strncmp(line, "slice ", 6)) {
			rc = load_slice(line + 6, spec, mon, probe, kernel,
					where, e);
		} else if (!strncmp(line, "global ", 7)) {
			char name[256];
			int idx, prop;
			long long v;

			if (sscanf(line + 7, "%255s %d %lld", name, &idx, &v) != 3 ||
			    (prop = find_prop(spec, name)) < 0)
				rc = vg_errf_code(e, VG_EXIT_USAGE,
						  "%s: bad global line", where);
			else
				rc = vg_monitor_set_global(mon, prop, idx, v, e);
		}
	}
	if (!rc && ferror(f))
		rc = vg_errf(e, "reading %s: %s", path, strerror(errno));
	if (!rc && n == 0)
		rc = vg_errf_code(e, VG_EXIT_USAGE,
				  "%s: empty, not a vigil monitor state", path);
	free(line);
	fclose(f);
	return rc;
}
