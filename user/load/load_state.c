/* A running session's loaded units in a checkpoint's monitor state
 * (load.h): written after the session's own state, a section per
 * unit ("loaded FILE", its -D and reaction lines, its properties, its
 * slices), and made again from those sections at a restore. */
#include "load.h"
#include "load_unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "feature/feature.h"
#include "spec/spec.h"
#include "util/lines.h"

/* --- a checkpoint's loaded sections written ---------------------------- */

int vg_load_write_state(struct vg_run *ss, FILE *out, struct vg_err *e)
{
	const struct vg_spec *own = vg_run_spec(ss);
	struct vg_loaded *u;

	/* the session's own properties unloaded since it started: a restore
	 * of this checkpoint leaves them out (vg_unload_restore) */
	for (int i = 0; vg_load_gone(ss) && i < own->nprops; i++)
		if (vg_load_gone(ss)[i])
			fprintf(out, "unloaded %s\n", own->props[i].name);

	for (int k = 0; (u = vg_loaded_at(ss, k)); k++) {
		struct vg_run *s = vg_loaded_run(u);
		const struct vg_spec *sp = vg_run_spec(s);
		char *const *defs;
		char *buf = NULL, *body;
		size_t len = 0;
		int ndefs;
		FILE *m = open_memstream(&buf, &len);

		if (!m)
			return vg_errf(e, "out of memory");
		if (vg_load_host_part_write_state(s, m, e)) {
			fclose(m);
			free(buf);
			return -1;
		}
		fclose(m);
		/* the section: which file, with which -D, which properties;
		 * then its slices and globals (without the state's first
		 * line, which the session's own part has) */
		fprintf(out, "loaded %s\n", vg_load_path(s));
		defs = vg_load_defs(u, &ndefs);
		for (int i = 0; i < ndefs; i++)
			fprintf(out, "define %s\n", defs[i]);
		defs = vg_load_reacts(u, &ndefs);
		for (int i = 0; i < ndefs; i++)
			fprintf(out, "reaction %s\n", defs[i]);
		fputs("properties", out);
		for (int i = 0; i < sp->nprops; i++)
			fprintf(out, " %s", sp->props[i].name);
		fputc('\n', out);
		body = buf ? strchr(buf, '\n') : NULL;
		if (body)
			fputs(body + 1, out);
		free(buf);
	}
	return 0;
}

/* --- a checkpoint's loaded sections brought back ---------------------- */

struct section {
	json_t *args;		/* [path, "-D", "N=V", ...]: as a load's */
	char *props;		/* its "properties" line */
	FILE *state;		/* "vigil-monitor-state 1" and its lines */
	char *buf;
	size_t len;
};

static void sections_free(struct section *sec, int n)
{
	for (int i = 0; i < n; i++) {
		json_decref(sec[i].args);
		free(sec[i].props);
		if (sec[i].state)
			fclose(sec[i].state);
		free(sec[i].buf);
	}
}

/* The sections of the state file at path (ckpt/ckpt.h says their form). */
static int read_sections(const char *path, struct section *sec, int *n,
			 struct vg_err *e)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, len;
	int r, rc = 0;

	*n = 0;
	if (!f)
		return vg_errf(e, "cannot read %s: %s", path, strerror(errno));
	while (!rc && (r = vg_read_line(f, &line, &cap, 16384, &len)) != 0) {
		struct section *c = *n ? &sec[*n - 1] : NULL;

		if (r < 0) {
			rc = vg_errf(e, "%s: a line too long", path);
		} else if (!strncmp(line, "loaded ", 7)) {
			if (*n == VG_LOAD_MAX) {
				rc = vg_errf(e, "%s: more than %d loaded spec files",
					     path, VG_LOAD_MAX);
				break;
			}
			c = &sec[(*n)++];
			memset(c, 0, sizeof(*c));
			c->args = json_pack("[s]", line + 7);
			c->state = open_memstream(&c->buf, &c->len);
			if (!c->args || !c->state)
				rc = vg_errf(e, "out of memory");
			else
				fputs("vigil-monitor-state 1\n", c->state);
		} else if (!c) {
			continue;	/* the session's own part */
		} else if (!strncmp(line, "define ", 7)) {
			json_array_append_new(c->args, json_string("-D"));
			json_array_append_new(c->args, json_string(line + 7));
		} else if (!strncmp(line, "reaction ", 9)) {
			json_array_append_new(c->args, json_string("--on-violation"));
			json_array_append_new(c->args, json_string(line + 9));
		} else if (!strncmp(line, "properties ", 11)) {
			free(c->props);
			c->props = strdup(line + 11);
		} else if (!strncmp(line, "slice ", 6) ||
			   !strncmp(line, "global ", 7)) {
			fprintf(c->state, "%s\n", line);
		}
	}
	free(line);
	fclose(f);
	for (int i = 0; i < *n; i++)
		if (sec[i].state && fflush(sec[i].state))
			rc = rc ? rc : vg_errf(e, "out of memory");
	return rc;
}

/* A unit's slices and globals from its section, through the monitor
 * state's own reader (a memory file: no temporary file to clean up). */
static int load_section(struct vg_run *u, struct section *c,
			struct vg_err *e)
{
	char path[64];
	int fd = memfd_create("vigil-state", 0), rc;

	if (fd < 0 || write(fd, c->buf, c->len) != (ssize_t)c->len) {
		if (fd >= 0)
			close(fd);
		return vg_errf(e, "restoring %s: %s", vg_load_path(u),
			       strerror(errno));
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rc = vg_load_host_part_read_state(u, path, e);
	close(fd);
	return rc;
}

int vg_load_restore(struct vg_run *ss, const char *path, struct vg_err *e)
{
	struct section sec[VG_LOAD_MAX];
	int n = 0, rc = -1;

	if (read_sections(path, sec, &n, e) || vg_unload_restore(ss, path, e))
		goto out;
	/* what was loaded since the checkpoint goes, what was unloaded
	 * since comes back: each from its initial state, then the
	 * checkpoint's slices */
	if (vg_load_units_reset(ss, n > 0, e))
		goto out;
	for (int i = 0; i < n; i++) {
		const char *file = json_string_value(json_array_get(sec[i].args, 0));
		struct vg_loaded *lu = vg_load_unit_open(ss, file,
							     sec[i].args, e);
		const struct vg_spec *sp;
		struct vg_run *u;
		char names[4096] = "";
		size_t len = 0;

		if (!lu) {
			char msg[sizeof(e->msg)];

			snprintf(msg, sizeof(msg), "%s", e->msg);
			vg_errf(e, "the checkpoint's loaded %s: %s", file, msg);
			goto out;
		}
		u = vg_loaded_run(lu);
		sp = vg_run_spec(u);
		for (int p = 0; p < sp->nprops && len < sizeof(names); p++)
			len += (size_t)snprintf(names + len, sizeof(names) - len,
						"%s%s", p ? " " : "",
						sp->props[p].name);
		/* the file may have changed since: its slices would be
		 * misread */
		if (sec[i].props && strcmp(names, sec[i].props)) {
			vg_errf(e, "the checkpoint's loaded %s had properties %s; it has %s now",
				file, sec[i].props, names);
			vg_load_unit_free(lu);
			goto out;
		}
		vg_load_unit_add(ss, lu);
		if (vg_load_host_push_holds(ss, u, e))
			goto out;
		if (load_section(u, &sec[i], e))
			goto out;
	}
	rc = 0;
out:
	sections_free(sec, n);
	return rc;
}
