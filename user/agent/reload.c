/* A unit's reload spec by spec (reload.h): each spec file read as its
 * session reads it (user/spec), hashed in three parts (its files, its
 * defines, its reactions) so that the log says what changed; then unload
 * and load over the session's control socket. */
#include "agent/reload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ctl/ctl.h"
#include "spec/spec.h"

#define FNV_START 1469598103934665603ull
#define UNLOAD_MS 10000
#define LOAD_MS 60000	/* compiles the spec, verifies its BPF programs */

/* The reaction a unit gives property name: its reaction.NAME line (the
 * last), or the unit's reaction. */
static const char *reaction_of(const struct vg_agent_unit *u, const char *name)
{
	const char *r = u->reaction;
	size_t n = strlen(name);

	for (int i = 0; i < u->nprop_reactions; i++)
		if (!strncmp(u->prop_reactions[i], name, n) &&
		    u->prop_reactions[i][n] == '=')
			r = u->prop_reactions[i] + n + 1;
	return r;
}

static void spec_free(struct vg_agent_spec *s)
{
	for (int i = 0; i < s->nprops; i++) {
		free(s->props[i]);
		free(s->reacts[i]);
	}
	free(s->props);
	free(s->reacts);
	free(s->defs);
	memset(s, 0, sizeof(*s));
}

/* Spec i of u, with u's defines; -1 when it cannot be read. */
static int read_one(const struct vg_agent_unit *u, int i,
		    struct vg_agent_spec *s)
{
	struct vg_spec *sp = vg_spec_new();
	struct vg_err e = { 0 };
	const char *f;
	int rc = -1;

	if (!sp)
		return -1;
	for (int d = 0; d < u->ndefines; d++) {
		const char *eq = strchr(u->defines[d], '=');
		char *name = strndup(u->defines[d], (size_t)(eq - u->defines[d]));

		if (!name || vg_spec_define(sp, name, eq + 1, &e)) {
			free(name);
			goto out;
		}
		free(name);
	}
	if (vg_spec_load_file(sp, u->specs[i], &e))
		goto out;
	for (int k = 0; (f = vg_spec_file(sp, k)); k++)
		if (vg_agent_hash_file(f, &s->files))
			goto out;
	s->defs = calloc((size_t)u->ndefines + 1, sizeof(*s->defs));
	s->props = calloc((size_t)sp->nprops + 1, sizeof(*s->props));
	s->reacts = calloc((size_t)sp->nprops + 1, sizeof(*s->reacts));
	if (!s->defs || !s->props || !s->reacts)
		goto out;
	for (int d = 0; d < u->ndefines; d++) {
		char name[VG_DEFINE_NAME_MAX + 1];
		size_t n = strcspn(u->defines[d], "=");

		snprintf(name, sizeof(name), "%.*s", (int)n, u->defines[d]);
		if (!vg_spec_define_used(sp, name))
			continue;
		s->defs[s->ndefs++] = u->defines[d];
		s->defines = vg_agent_fnv(s->defines, u->defines[d],
					  strlen(u->defines[d]) + 1);
	}
	for (int p = 0; p < sp->nprops; p++, s->nprops++) {
		const char *r = reaction_of(u, sp->props[p].name);

		if (!(s->props[p] = strdup(sp->props[p].name)) ||
		    asprintf(&s->reacts[p], "%s=%s", sp->props[p].name, r) < 0) {
			s->reacts[p] = NULL;
			s->nprops++;
			goto out;
		}
		s->reactions = vg_agent_fnv(s->reactions, s->reacts[p],
					    strlen(s->reacts[p]) + 1);
		s->checkpoint |= !strcmp(r, "checkpoint");
	}
	rc = 0;
out:
	vg_spec_free(sp);
	return rc;
}

void vg_agent_specs_read(const struct vg_agent_unit *u,
			 struct vg_agent_specs *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < u->nspecs; i++) {
		struct vg_agent_spec *s = &out->s[out->n++];

		s->files = s->defines = s->reactions = FNV_START;
		if (read_one(u, i, s)) {
			spec_free(s);
			s->nprops = -1;
		}
		s->path = u->specs[i];
	}
}

void vg_agent_specs_free(struct vg_agent_specs *sp)
{
	for (int i = 0; i < sp->n; i++)
		if (sp->s[i].nprops >= 0)
			spec_free(&sp->s[i]);
	sp->n = 0;
}

static const struct vg_agent_spec *find(const struct vg_agent_specs *sp,
					const char *path)
{
	for (int i = 0; i < sp->n; i++)
		if (!strcmp(sp->s[i].path, path))
			return &sp->s[i];
	return NULL;
}

static bool same(const struct vg_agent_spec *a, const struct vg_agent_spec *b)
{
	return a->nprops >= 0 && b->nprops >= 0 && a->files == b->files &&
	       a->defines == b->defines && a->reactions == b->reactions;
}

/* What changed in a spec, for the log: "its text, its defines". */
static void what(const struct vg_agent_spec *was,
		 const struct vg_agent_spec *is, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (!was) {
		snprintf(buf, len, "added");
		return;
	}
	if (!is) {
		snprintf(buf, len, "removed");
		return;
	}
	if (was->files != is->files)
		n += (size_t)snprintf(buf + n, len - n, "its text");
	if (was->defines != is->defines && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sits defines",
				      n ? ", " : "");
	if (was->reactions != is->reactions && n < len)
		snprintf(buf + n, len - n, "%sits reactions", n ? ", " : "");
}

/* One request; its answer's data, or NULL with e set (the answer's
 * error when vigil refused). */
static json_t *call(const char *sock, const char *cmd, json_t *args, int ms,
		    struct vg_err *e)
{
	json_t *r = vg_ctl_call(sock, cmd, args, ms, e), *d;

	if (!r)
		return NULL;
	if (!json_is_true(json_object_get(r, "ok"))) {
		const char *m = json_string_value(json_object_get(r, "error"));

		vg_errf(e, "%s refused: %s", cmd, m ? m : "no reason given");
		json_decref(r);
		return NULL;
	}
	d = json_object_get(r, "data");
	d = d ? json_incref(d) : json_object();
	json_decref(r);
	return d;
}

static int unload(const char *sock, const char *unit,
		  const struct vg_agent_spec *s, const char *why,
		  vg_agent_note note, void *ctx, struct vg_err *e)
{
	char msg[8192];
	size_t n;
	bool gone[s->nprops + 1];

	memset(gone, 0, sizeof(gone));
	n = (size_t)snprintf(msg, sizeof(msg), "%s: %s %s: unloaded", unit,
			     s->path, why);
	for (int p = 0; p < s->nprops; p++) {
		json_t *d, *v;
		size_t k;

		if (gone[p])	/* loaded with one already unloaded */
			continue;
		if (!(d = call(sock, "unload", json_pack("[s]", s->props[p]),
			       UNLOAD_MS, e)))
			return -1;
		json_array_foreach(json_object_get(d, "properties"), k, v)
			for (int q = 0; q < s->nprops; q++)
				if (json_is_string(v) &&
				    !strcmp(json_string_value(v), s->props[q]))
					gone[q] = true;
		json_decref(d);
		gone[p] = true;
	}
	for (int p = 0; p < s->nprops && n < sizeof(msg); p++)
		n += (size_t)snprintf(msg + n, sizeof(msg) - n, " %s", s->props[p]);
	note(ctx, msg);
	return 0;
}

static int load(const char *sock, const char *unit,
		const struct vg_agent_spec *s, const char *why,
		vg_agent_note note, void *ctx, struct vg_err *e)
{
	json_t *args = json_pack("[s]", s->path), *d, *v;
	char msg[8192];
	size_t n, k;

	if (!args)
		return vg_errf(e, "out of memory");
	for (int i = 0; i < s->ndefs; i++) {
		json_array_append_new(args, json_string("-D"));
		json_array_append_new(args, json_string(s->defs[i]));
	}
	for (int p = 0; p < s->nprops; p++) {
		json_array_append_new(args, json_string("--on-violation"));
		json_array_append_new(args, json_string(s->reacts[p]));
	}
	if (!(d = call(sock, "load", args, LOAD_MS, e)))
		return -1;
	n = (size_t)snprintf(msg, sizeof(msg), "%s: %s %s: loaded", unit,
			     s->path, why);
	json_array_foreach(json_object_get(d, "properties"), k, v)
		if (n < sizeof(msg))
			n += (size_t)snprintf(msg + n, sizeof(msg) - n,
					      " %s (%s tier)",
					      json_string_value(json_object_get(v, "name")),
					      json_string_value(json_object_get(v, "tier")));
	json_decref(d);
	note(ctx, msg);
	return 0;
}

int vg_agent_reload_specs(pid_t session, const char *unit,
			  const struct vg_agent_specs *old,
			  const struct vg_agent_specs *now, int *changed,
			  vg_agent_note note, void *ctx, struct vg_err *e)
{
	char sock[4096], why[128], w[160];
	json_t *hello;

	*changed = 0;
	/* first everything that rules the route out, before any step */
	for (int i = 0; i < old->n; i++) {
		const struct vg_agent_spec *is = find(now, old->s[i].path);

		if ((!is || !same(&old->s[i], is)) && old->s[i].nprops < 0)
			return vg_errf(e, "%s could not be read when its session started: which properties it has is not known",
				       old->s[i].path);
	}
	for (int i = 0; i < now->n; i++) {
		const struct vg_agent_spec *was = find(old, now->s[i].path);

		if (was && same(was, &now->s[i]))
			continue;
		if (now->s[i].nprops < 0)
			return vg_errf(e, "%s cannot be read (its session will say why)",
				       now->s[i].path);
		if (now->s[i].checkpoint)
			return vg_errf(e, "%s has a property whose reaction is checkpoint: a spec loaded into a running session takes none",
				       now->s[i].path);
		(*changed)++;
	}
	for (int i = 0; i < old->n; i++)
		*changed += !find(now, old->s[i].path);
	if (!*changed)
		return 0;
	if (vg_ctl_socket_path(session, sock, sizeof(sock), e))
		return -1;
	/* its own vigil's socket, answering */
	if (!(hello = call(sock, "hello", NULL, UNLOAD_MS, e)))
		return -1;
	if (json_integer_value(json_object_get(hello, "vigil")) != session) {
		json_decref(hello);
		return vg_errf(e, "%s is not session %d's control socket", sock,
			       session);
	}
	json_decref(hello);
	/* out first: a changed spec's properties keep their names */
	for (int i = 0; i < old->n; i++) {
		const struct vg_agent_spec *is = find(now, old->s[i].path);

		if (is && same(&old->s[i], is))
			continue;
		what(&old->s[i], is, why, sizeof(why));
		snprintf(w, sizeof(w), is ? "changed (%s)" : "%s", why);
		if (unload(sock, unit, &old->s[i], w, note, ctx, e))
			return -1;
	}
	for (int i = 0; i < now->n; i++) {
		const struct vg_agent_spec *was = find(old, now->s[i].path);

		if (was && same(was, &now->s[i]))
			continue;
		what(was, &now->s[i], why, sizeof(why));
		snprintf(w, sizeof(w), was ? "changed (%s)" : "%s", why);
		if (load(sock, unit, &now->s[i], w, note, ctx, e))
			return -1;
	}
	return 0;
}
