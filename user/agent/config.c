/* The agent's configuration files: bounded line reading (util/lines.h),
 * `key = value`, errors at FILE:LINE. */
#include "agent/config.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/lines.h"

#define MAX_LINE 4096
#define MAX_SPEC_BYTES (16u << 20)

uint64_t vg_agent_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

int vg_agent_hash_file(const char *path, uint64_t *h)
{
	char buf[65536];
	size_t n, total = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 &&
	       (total += n) <= MAX_SPEC_BYTES)
		*h = vg_agent_fnv(*h, buf, n);
	fclose(f);
	return total > MAX_SPEC_BYTES ? -1 : 0;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = 0;
	return s;
}

static int set_str(char *dst, size_t len, const char *v, const char *path,
		   int line, const char *key, struct vg_err *e)
{
	if (strlen(v) >= len)
		return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: %s: value too long",
				    path, line, key);
	strcpy(dst, v);
	return 0;
}

static bool one_of(const char *v, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(v, *set))
			return true;
	return false;
}

static int take(struct vg_agent_unit *u, const char *dir, const char *key,
		const char *v, const char *path, int line, struct vg_err *e)
{
	static const char *const reactions[] = { "log", "stop", "kill",
						 "checkpoint", NULL };
	static const char *const tiers[] = { "auto", "kernel", "user", NULL };
	char abs[PATH_MAX];

	if (!*v)
		return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: %s: no value after '='",
				    path, line, key);
	if (!strcmp(key, "exe") || !strcmp(key, "pidfile")) {
		if (v[0] != '/')
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: %s: '%s' is not an absolute path",
					    path, line, key, v);
		if (u->exe[0] || u->pidfile[0])
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: %s: the file already names its processes (one exe or one pidfile per file)",
					    path, line, key);
		return set_str(key[0] == 'e' ? u->exe : u->pidfile,
			       sizeof(u->exe), v, path, line, key, e);
	}
	if (!strcmp(key, "spec")) {
		if (u->nspecs == VG_AGENT_MAX_SPECS)
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: more than %d specs",
					    path, line, VG_AGENT_MAX_SPECS);
		if (snprintf(abs, sizeof(abs), "%s%s%s", v[0] == '/' ? "" : dir,
			     v[0] == '/' ? "" : "/", v) >= (int)sizeof(abs))
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: spec: path too long",
					    path, line);
		errno = 0;
		if (vg_agent_hash_file(abs, &u->fingerprint))
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: spec: cannot read %s: %s",
					    path, line, abs,
					    errno ? strerror(errno) : "larger than 16 MiB");
		if (!(u->specs[u->nspecs] = strdup(abs)))
			return vg_errf(e, "out of memory");
		u->nspecs++;
		return 0;
	}
	if (!strcmp(key, "define")) {
		const char *eq = strchr(v, '=');

		if (!eq || eq == v)
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: define: '%s' is not NAME=VALUE",
					    path, line, v);
		if (u->ndefines == VG_AGENT_MAX_DEFINES)
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: more than %d defines",
					    path, line, VG_AGENT_MAX_DEFINES);
		if (!(u->defines[u->ndefines] = strdup(v)))
			return vg_errf(e, "out of memory");
		u->ndefines++;
		return 0;
	}
	if (!strncmp(key, "reaction.", 9)) {
		char *kv;

		if (!key[9])
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: reaction.: no property name after the dot",
					    path, line);
		if (!one_of(v, reactions))
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: %s: '%s' is not log, stop, kill or checkpoint",
					    path, line, key, v);
		if (u->nprop_reactions == VG_AGENT_MAX_SPECS)
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: more than %d reaction.PROP lines",
					    path, line, VG_AGENT_MAX_SPECS);
		if (asprintf(&kv, "%s=%s", key + 9, v) < 0)
			return vg_errf(e, "out of memory");
		u->prop_reactions[u->nprop_reactions++] = kv;
		return 0;
	}
	if (!strcmp(key, "reaction")) {
		if (!one_of(v, reactions))
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: reaction: '%s' is not log, stop, kill or checkpoint",
					    path, line, v);
		return set_str(u->reaction, sizeof(u->reaction), v, path, line,
			       key, e);
	}
	if (!strcmp(key, "tier")) {
		if (!one_of(v, tiers))
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: tier: '%s' is not auto, kernel or user",
					    path, line, v);
		return set_str(u->tier, sizeof(u->tier), v, path, line, key, e);
	}
	if (!strcmp(key, "checkpoint-dir")) {
		if (v[0] != '/')
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: checkpoint-dir: '%s' is not an absolute path",
					    path, line, v);
		return set_str(u->checkpoint_dir, sizeof(u->checkpoint_dir), v,
			       path, line, key, e);
	}
	if (!strcmp(key, "same-build")) {
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: same-build: '%s' is not yes or no",
					    path, line, v);
		u->same_build = !strcmp(v, "yes");
		return 0;
	}
	return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: unknown key '%s' (expected exe, pidfile, spec, define, reaction, reaction.PROP, checkpoint-dir, tier or same-build)",
			    path, line, key);
}

int vg_agent_unit_load(const char *path, struct vg_agent_unit *u,
		       struct vg_err *e)
{
	char *buf = NULL, *key, *eq, dir[PATH_MAX], tmp[PATH_MAX];
	const char *base;
	size_t cap = 0, len, blen;
	int line = 0, r, rc = -1;
	FILE *f;

	memset(u, 0, sizeof(*u));
	strcpy(u->reaction, "log");	/* production: record, do not stop */
	strcpy(u->tier, "auto");
	u->fingerprint = 1469598103934665603ull;
	snprintf(u->path, sizeof(u->path), "%s", path);
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	blen = strlen(base);
	if (blen > 5 && !strcmp(base + blen - 5, ".conf"))
		blen -= 5;
	snprintf(u->name, sizeof(u->name), "%.*s", (int)blen, base);
	if (!(f = fopen(path, "re")))
		return vg_errf_code(e, VG_EXIT_USAGE, "%s: %s", path,
				    strerror(errno));
	while ((r = vg_read_line(f, &buf, &cap, MAX_LINE, &len)) == 1) {
		line++;
		u->fingerprint = vg_agent_fnv(u->fingerprint, buf, len + 1);
		if (vg_not_text(buf, len) >= 0) {
			vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: not a text line (a binary file?)",
				     path, line);
			goto out;
		}
		key = trim(buf);
		if (!*key || *key == '#')
			continue;
		if (!(eq = strchr(key, '='))) {
			vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: expected 'key = value', found '%s'",
				     path, line, key);
			goto out;
		}
		*eq = 0;
		if (take(u, dir, trim(key), trim(eq + 1), path, line, e))
			goto out;
	}
	if (r < 0) {
		vg_errf_code(e, VG_EXIT_USAGE, "%s:%d: line longer than %d bytes",
			     path, line + 1, MAX_LINE);
		goto out;
	}
	if (!u->exe[0] && !u->pidfile[0]) {
		vg_errf_code(e, VG_EXIT_USAGE, "%s: names no processes: give 'exe = PATH' or 'pidfile = PATH'",
			     path);
		goto out;
	}
	if (u->same_build && !u->exe[0]) {
		/* one process by its pidfile has no copies to look for */
		vg_errf_code(e, VG_EXIT_USAGE, "%s: same-build is for 'exe = PATH' units (vigil watch --same-build)",
			     path);
		goto out;
	}
	if (!u->nspecs) {
		vg_errf_code(e, VG_EXIT_USAGE, "%s: no 'spec = FILE' line", path);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	fclose(f);
	if (rc)
		vg_agent_unit_free(u);
	return rc;
}

void vg_agent_unit_free(struct vg_agent_unit *u)
{
	for (int i = 0; i < u->nspecs; i++)
		free(u->specs[i]);
	for (int i = 0; i < u->ndefines; i++)
		free(u->defines[i]);
	for (int i = 0; i < u->nprop_reactions; i++)
		free(u->prop_reactions[i]);
	u->nspecs = u->ndefines = u->nprop_reactions = 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_conf(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 &&
	       !strcmp(d->d_name + n - 5, ".conf");
}

int vg_agent_conf_load(const char *dir, struct vg_agent_conf *conf,
		       struct vg_err *e)
{
	struct dirent **ents;
	char path[PATH_MAX];
	int n, rc = 0;

	conf->units = NULL;
	conf->nunits = 0;
	if ((n = scandir(dir, &ents, is_conf, by_name)) < 0)
		return vg_errf_code(e, VG_EXIT_USAGE, "--config %s: %s", dir,
				    strerror(errno));
	if (n && !(conf->units = calloc(n, sizeof(*conf->units))))
		rc = vg_errf(e, "out of memory");
	for (int i = 0; i < n; i++) {
		if (!rc) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 ents[i]->d_name);
			rc = vg_agent_unit_load(path, &conf->units[i], e);
			if (!rc)
				conf->nunits++;
		}
		free(ents[i]);
	}
	free(ents);
	if (rc)
		vg_agent_conf_free(conf);
	return rc;
}

void vg_agent_conf_free(struct vg_agent_conf *conf)
{
	for (int i = 0; i < conf->nunits; i++)
		vg_agent_unit_free(&conf->units[i]);
	free(conf->units);
	conf->units = NULL;
	conf->nunits = 0;
}
