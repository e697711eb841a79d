/* Spec parameters: `param NAME = VALUE` at the top level of a file, the
 * `$NAME` tokens that stand for the value further down that file, and the
 * -D NAME=VALUE overrides given before a load (docs/LANGUAGE.md,
 * Parameters). A library property names the functions it is about through
 * parameters, so one file serves another allocator or API.
 *
 * Substitution is by token, as cpp's, but typed by the default: a -D value
 * must be the same kind of token (a name, a number or a string) as the
 * default it replaces, so an error is reported at the declaration, with
 * its file:line:col, instead of as a puzzling syntax error further on. */
#include "spec_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct vg_define {
	char *name, *value;
	bool used;		/* some loaded file declares the name */
};

struct vg_defines {
	int n;
	struct vg_define *v;
	/* every name declared by the files loaded so far, for the error
	 * that a -D matched none of them */
	int ndeclared;
	char **declared;
};

static bool is_name(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static struct vg_defines *defines(const struct vg_spec *spec, bool create)
{
	struct vg_defines **d = vg_spec_defines(spec);

	if (!*d && create)
		*d = calloc(1, sizeof(**d));
	return *d;
}

int vg_spec_define(struct vg_spec *spec, const char *name, const char *value,
		   struct vg_err *e)
{
	struct vg_defines *d = defines(spec, true);
	struct vg_define *v;
	char *n, *val;

	if (!d)
		return vg_errf(e, "out of memory");
	/* bounded as any input: a value is a name, a number or a string of
	 * a spec, never a file's worth */
	if (strlen(name) > VG_DEFINE_NAME_MAX)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "-D %.40s...: the name is %zu bytes, at most %d",
				    name, strlen(name), VG_DEFINE_NAME_MAX);
	if (strlen(value) > VG_DEFINE_VALUE_MAX)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "-D %s=%.40s...: the value is %zu bytes, at most %d",
				    name, value, strlen(value),
				    VG_DEFINE_VALUE_MAX);
	if (!is_name(name))
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "-D %s=%s: '%s' is not a parameter name, expected letters, digits and '_'",
				    name, value, name);
	/* the last -D of a name wins, as in cpp */
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].name, name)) {
			if (!(val = strdup(value)))
				return vg_errf(e, "out of memory");
			free(d->v[i].value);
			d->v[i].value = val;
			return 0;
		}
	v = realloc(d->v, (size_t)(d->n + 1) * sizeof(*v));
	if (!v)
		return vg_errf(e, "out of memory");
	d->v = v;
	n = strdup(name);
	val = strdup(value);
	if (!n || !val) {
		free(n);
		free(val);
		return vg_errf(e, "out of memory");
	}
	d->v[d->n++] = (struct vg_define){ n, val, false };
	return 0;
}

int vg_spec_check_defines(const struct vg_spec *spec, struct vg_err *e)
{
	const struct vg_defines *d = defines(spec, false);
	char known[512] = "";
	size_t len = 0;

	for (int i = 0; d && i < d->n; i++) {
		if (d->v[i].used)
			continue;
		for (int j = 0; j < d->ndeclared && len < sizeof(known); j++)
			len += (size_t)snprintf(known + len, sizeof(known) - len,
						"%s%s", j ? ", " : "",
						d->declared[j]);
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "-D %s: no spec file declares 'param %s' (%s%s)",
				    d->v[i].name, d->v[i].name,
				    d->ndeclared ? "they declare: " : "they declare no parameter",
				    known);
	}
	return 0;
}

bool vg_spec_define_used(const struct vg_spec *spec, const char *name)
{
	const struct vg_defines *d = defines(spec, false);

	for (int i = 0; d && i < d->n; i++)
		if (!strcmp(d->v[i].name, name))
			return d->v[i].used;
	return false;
}

void vg_defines_free(struct vg_defines *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n; i++) {
		free(d->v[i].name);
		free(d->v[i].value);
	}
	free(d->v);
	for (int i = 0; i < d->ndeclared; i++)
		free(d->declared[i]);
	free(d->declared);
	free(d);
}

void vg_params_adopt(struct vg_spec *spec, struct vg_ld *ld)
{
	struct vg_defines *d;
	char **a;

	if (!ld->ndeclared || !(d = defines(spec, true)))
		return;
	for (int i = 0; ld->def_used && i < d->n; i++)
		d->v[i].used |= ld->def_used[i];
	a = realloc(d->declared,
		    (size_t)(d->ndeclared + ld->ndeclared) * sizeof(*a));
	if (!a)
		return;		/* only the error message loses the list */
	d->declared = a;
	for (int i = 0; i < ld->ndeclared; i++) {
		bool seen = false;

		for (int j = 0; j < d->ndeclared && !seen; j++)
			seen = !strcmp(d->declared[j], ld->declared[i]);
		if (!seen && (a[d->ndeclared] = strdup(ld->declared[i])))
			d->ndeclared++;
	}
}

/* A -D value as a token of the default's kind; false when it is not one. */
static bool convert(struct vg_ld *ld, const char *text, struct vg_token *out)
{
	char *end;

	switch (out->kind) {
	case T_IDENT:
		if (!is_name(text))
			return false;
		out->str = vg_ld_strndup(ld, text, strlen(text));
		return true;
	case T_INT:
		/* the language's own rules: decimal or 0x, no octal */
		if (!(*text >= '0' && *text <= '9') ||
		    (text[0] == '0' && text[1] >= '0' && text[1] <= '9'))
			return false;
		errno = 0;
		out->ival = strtoull(text, &end, 0);
		if (*end && end[-1] >= '0' && end[-1] <= '9' &&
		    !(text[0] == '0' && (text[1] | 0x20) == 'x')) {
			uint64_t mult;	/* a duration: -D limit=300ms */
			size_t u = vg_unit_suffix(end, strlen(end), &mult);

			if (!u || end[u] || out->ival > UINT64_MAX / mult)
				return false;
			out->ival *= mult;
			end += u;
		}
		return !*end && !errno;
	default:	/* T_STRING: the text as it is */
		out->str = vg_ld_strndup(ld, text, strlen(text));
		return true;
	}
}

static const char *kind_name(enum vg_tok k)
{
	return k == T_IDENT ? "a name" : k == T_INT ? "a number" : "a string";
}

void vg_param_declare(struct vg_ld *ld, struct vg_pscope *sc,
		      const struct vg_token *name,
		      const struct vg_token *value)
{
	struct vg_defines *d = defines(ld->spec, false);
	struct vg_pdecl *p;

	for (int i = 0; i < sc->n; i++)
		if (!strcmp(sc->v[i].name, name->str))
			vg_ld_error(ld, name->loc, "parameter '%s' is already declared at line %d, expected each name once per file",
				    name->str, sc->v[i].loc.line);
	p = VG_PUSH(ld, sc->v, sc->n, sc->cap);
	p->name = name->str;
	p->loc = name->loc;
	p->value = *value;
	*VG_PUSH(ld, ld->declared, ld->ndeclared, ld->capdeclared) = name->str;
	for (int i = 0; d && i < d->n; i++) {
		if (strcmp(d->v[i].name, name->str))
			continue;
		if (!convert(ld, d->v[i].value, &p->value))
			vg_ld_error(ld, name->loc, "-D %s=%s: expected %s, as the default %.*s is",
				    d->v[i].name, d->v[i].value,
				    kind_name(value->kind),
				    (int)(value->len > 60 ? 60 : value->len),
				    value->start);
		if (!ld->def_used)
			ld->def_used = vg_ld_alloc(ld, (size_t)d->n * sizeof(bool));
		ld->def_used[i] = true;
	}
}

void vg_param_subst(struct vg_ld *ld, const struct vg_pscope *sc,
		    struct vg_token *t)
{
	for (int i = 0; i < sc->n; i++) {
		if (strcmp(sc->v[i].name, t->str))
			continue;
		t->kind = sc->v[i].value.kind;
		t->param = sc->v[i].name;
		t->str = sc->v[i].value.str;
		t->ival = sc->v[i].value.ival;
		return;
	}
	vg_ld_error(ld, t->loc, "unknown parameter '$%s', expected one declared above with 'param %s = ...'",
		    t->str, t->str);
}
