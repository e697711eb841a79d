/* A running session's loaded units in a checkpoint's monitor state
 * (live_load.h): written after the session's own state, a section per
 * unit ("loaded FILE", its -D and reaction lines, its properties, its
 * slices), and made again from those sections at a restore. */
#include "live_load.h"
#include "live_load_unit.h"
#include "live.h"
#include "session_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ckpt/ckpt.h"
#include "util/lines.h"

/* --- a checkpoint's loaded sections written ---------------------------- */

int vg_load_write_state(struct session *ss, FILE *out, struct vg_err *e)
{
	struct session *s;

	/* the session's own properties unloaded since it started: a restore
	 * of this checkpoint leaves them out (vg_unload_restore) */
	for (int i = 0; vg_load_gone(ss) && i < ss->spec->nprops; i++)
		if (vg_load_gone(ss)[i])
			fprintf(out, "unloaded %s\n", ss->spec->props[i].name);

	for (int k = 0; (s = vg_load_unit(ss, k)); k++) {
		char *const *defs;
		char *buf = NULL, *body;
		size_t len = 0;
		int ndefs;
		FILE *m = open_memstream(&buf, &len);

		if (!m)
			return vg_errf(e, "out of memory");
		if (vg_monstate_write(m, s->spec, s->mon, s->probe, s->kernel, e)) {
			fclose(m);
			free(buf);
			return -1;
		}
		fclose(m);
		/* the section: which file, with which -D, which properties;
		 * then its slices and globals (without the state's first
		 * line, which the session's own part has) */
		fprintf(out, "loaded %s\n", vg_load_path(s));
		defs = vg_load_defs(s, &ndefs);
		for (int i = 0; i < ndefs; i++)
			fprintf(out, "define %s\n", defs[i]);
		defs = vg_load_reacts(s, &ndefs);
		for (int i = 0; i < ndefs; i++)
			fprintf(out, "reaction %s\n", defs[i]);
		fputs("properties", out);
		for (int i = 0; i < s->spec->nprops; i++)
			fprintf(out, " %s", s->spec->props[i].name);
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
static int load_section(struct session *u, struct section *c,
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
	rc = vg_monstate_load(path, u->spec, u->mon, u->probe, u->kernel, e);
	close(fd);
	return rc;
}

int vg_load_restore(struct session *ss, const char *path, struct vg_err *e)
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
		struct session *u = vg_load_unit_open(ss, file, sec[i].args, e);
		char names[4096] = "";
		size_t len = 0;

		if (!u) {
			char msg[sizeof(e->msg)];

			snprintf(msg, sizeof(msg), "%s", e->msg);
			vg_errf(e, "the checkpoint's loaded %s: %s", file, msg);
			goto out;
		}
		for (int p = 0; p < u->spec->nprops && len < sizeof(names); p++)
			len += (size_t)snprintf(names + len, sizeof(names) - len,
						"%s%s", p ? " " : "",
						u->spec->props[p].name);
		/* the file may have changed since: its slices would be
		 * misread */
		if (sec[i].props && strcmp(names, sec[i].props)) {
			vg_errf(e, "the checkpoint's loaded %s had properties %s; it has %s now",
				file, sec[i].props, names);
			vg_load_unit_free(u);
			goto out;
		}
		vg_load_unit_add(ss, u);
		if (vg_live_push_holds(ss, u, e))
			goto out;
		if (load_section(u, &sec[i], e))
			goto out;
	}
	rc = 0;
out:
	sections_free(sec, n);
	return rc;
}
