#include "suppress.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fkind { F_FUN, F_OBJ, F_SRC, F_ANY };

struct frame_pat {
	enum fkind kind;
	char *glob;
	int line;		/* src:FILE:LINE; 0: any */
};

struct supp {
	char *name;
	char *pattern;		/* leak:PATTERN, or NULL for a valgrind entry */
	unsigned kinds;		/* bit per enum vg_leak_kind */
	struct frame_pat *f;
	int nf;
};

struct vg_leak_supp {
	struct supp *v;
	int n;
};

struct vg_leak_supp *vg_leak_supp_new(void)
{
	return calloc(1, sizeof(struct vg_leak_supp));
}

static void supp_clear(struct supp *x)
{
	free(x->name);
	free(x->pattern);
	for (int i = 0; i < x->nf; i++)
		free(x->f[i].glob);
	free(x->f);
	memset(x, 0, sizeof(*x));
}

void vg_leak_supp_free(struct vg_leak_supp *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		supp_clear(&s->v[i]);
	free(s->v);
	free(s);
}

int vg_leak_supp_count(const struct vg_leak_supp *s)
{
	return s ? s->n : 0;
}

const char *vg_leak_supp_name(const struct vg_leak_supp *s, int i)
{
	return s && i >= 0 && i < s->n ? s->v[i].name : "?";
}

/* ---- matching */

/* LeakSanitizer's template: `*` any run, `^`/`$` anchors, else a
 * substring */
static bool tmatch(const char *pat, const char *s)
{
	char g[1024];
	size_t n = 0;
	bool start = pat[0] == '^';
	size_t len;

	if (start)
		pat++;
	len = strlen(pat);
	if (!s || !s[0])
		return false;
	if (!start)
		g[n++] = '*';
	for (size_t i = 0; i < len && n + 3 < sizeof(g); i++) {
		if (i == len - 1 && pat[i] == '$')
			break;
		if (pat[i] == '?' || pat[i] == '[' || pat[i] == '\\')
			g[n++] = '\\';
		g[n++] = pat[i];
	}
	if (!(len && pat[len - 1] == '$'))
		g[n++] = '*';
	g[n] = 0;
	return fnmatch(g, s, 0) == 0;
}

static bool frame_ok(const struct frame_pat *p, const struct vg_leak_frame *f)
{
	const char *base;

	switch (p->kind) {
	case F_FUN:
		return f->func && fnmatch(p->glob, f->func, 0) == 0;
	case F_OBJ:
		return f->obj && f->obj[0] && fnmatch(p->glob, f->obj, 0) == 0;
	case F_SRC:	/* the file's base name, as valgrind prints it */
		if (!f->file || !f->file[0])
			return false;
		base = strrchr(f->file, '/');
		base = base ? base + 1 : f->file;
		if (p->line && p->line != f->line)
			return false;
		return fnmatch(p->glob, base, 0) == 0 ||
		       fnmatch(p->glob, f->file, 0) == 0;
	case F_ANY:
		break;
	}
	return false;
}

/* valgrind's: the pattern's frames from the innermost one, `...`
 * matching any number (a pattern shorter than the stack matches its top
 * part) */
static bool frames_match(const struct frame_pat *p, int np,
			 const struct vg_leak_frame *f, int nf)
{
	if (np == 0)
		return true;
	if (p->kind == F_ANY) {
		for (int skip = 0; skip <= nf; skip++)
			if (frames_match(p + 1, np - 1, f + skip, nf - skip))
				return true;
		return false;
	}
	return nf > 0 && frame_ok(p, f) && frames_match(p + 1, np - 1, f + 1,
							 nf - 1);
}

int vg_leak_supp_match(const struct vg_leak_supp *s,
		       const struct vg_leak_frame *f, int n,
		       enum vg_leak_kind k)
{
	for (int i = 0; s && i < s->n; i++) {
		const struct supp *x = &s->v[i];

		if (!(x->kinds >> k & 1))
			continue;
		if (x->pattern) {
			for (int j = 0; j < n; j++)
				if (tmatch(x->pattern, f[j].func) ||
				    tmatch(x->pattern, f[j].file) ||
				    tmatch(x->pattern, f[j].obj))
					return i;
		} else if (frames_match(x->f, x->nf, f, n)) {
			return i;
		}
	}
	return -1;
}

/* ---- parsing */

static char *trim(char *l)
{
	char *end;

	while (*l == ' ' || *l == '\t')
		l++;
	end = l + strlen(l);
	while (end > l && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r' || end[-1] == '\n'))
		*--end = 0;
	return l;
}

static int add(struct vg_leak_supp *s, struct supp *x, struct vg_err *e)
{
	struct supp *v = realloc(s->v, (size_t)(s->n + 1) * sizeof(*v));

	if (!v) {
		supp_clear(x);
		return vg_errf(e, "out of memory");
	}
	s->v = v;
	s->v[s->n++] = *x;
	memset(x, 0, sizeof(*x));
	return 0;
}

static int kinds_of(char *list, unsigned *out)
{
	*out = 0;
	for (char *t = strtok(list, ", \t"); t; t = strtok(NULL, ", \t")) {
		if (!strcmp(t, "all")) {
			*out = (1u << VG_LEAK_NKINDS) - 1;
			continue;
		}
		int k = 0;

		while (k < VG_LEAK_NKINDS && strcmp(t, vg_leak_kind_name(k)))
			k++;
		if (k == VG_LEAK_NKINDS)
			return -1;
		*out |= 1u << k;
	}
	return *out ? 0 : -1;
}

static int add_frame(struct supp *x, const char *l)
{
	struct frame_pat p = { 0 };
	struct frame_pat *v;
	const char *arg;

	if (!strcmp(l, "...")) {
		p.kind = F_ANY;
		arg = NULL;
	} else if (!strncmp(l, "fun:", 4)) {
		p.kind = F_FUN;
		arg = l + 4;
	} else if (!strncmp(l, "obj:", 4)) {
		p.kind = F_OBJ;
		arg = l + 4;
	} else if (!strncmp(l, "src:", 4)) {
		p.kind = F_SRC;
		arg = l + 4;
	} else {
		return -1;
	}
	if (arg) {
		if (!*arg)
			return -1;
		p.glob = strdup(arg);
		if (!p.glob)
			return -2;
		if (p.kind == F_SRC) {
			char *colon = strrchr(p.glob, ':');

			if (colon && colon[1]) {
				p.line = atoi(colon + 1);
				*colon = 0;
			}
		}
	}
	v = realloc(x->f, (size_t)(x->nf + 1) * sizeof(*v));
	if (!v) {
		free(p.glob);
		return -2;
	}
	x->f = v;
	x->f[x->nf++] = p;
	return 0;
}

int vg_leak_supp_parse(struct vg_leak_supp *s, const char *name,
		       const char *text, struct vg_err *e)
{
	char *copy = strdup(text), *next;
	struct supp x = { 0 };
	int lineno = 0, last = 0, in = 0, first = 0, rc = -1;
	bool skip = false;	/* a valgrind entry for another tool/kind */

	if (!copy)
		return vg_errf(e, "out of memory");
	for (char *raw = copy; raw; raw = next) {
		char *l, *nl = strchr(raw, '\n');

		if (nl)
			*nl = 0;
		next = nl ? nl + 1 : NULL;
		lineno++;
		l = trim(raw);
		if (!*l || *l == '#')
			continue;
		last = lineno;
		if (!in) {
			if (!strcmp(l, "{")) {
				in = 1;
				first = lineno;
				skip = false;
				x.kinds = (1u << VG_LEAK_NKINDS) - 1;
				continue;
			}
			if (!strncmp(l, "leak:", 5) && l[5]) {
				x.kinds = (1u << VG_LEAK_NKINDS) - 1;
				x.pattern = strdup(trim(l + 5));
				x.name = malloc(strlen(l) + 1);
				if (!x.pattern || !x.name) {
					vg_errf(e, "out of memory");
					goto out;
				}
				strcpy(x.name, l);
				if (add(s, &x, e))
					goto out;
				continue;
			}
			vg_errf_code(e, 2, "%s:%d: expected `leak:PATTERN` or `{` (a valgrind suppression), got `%s`",
				     name, lineno, l);
			goto out;
		}
		if (!strcmp(l, "}")) {
			if (in < 3 && !skip) {
				vg_errf_code(e, 2, "%s:%d: the suppression opened at line %d needs a name and a `Memcheck:Leak` line",
					     name, lineno, first);
				goto out;
			}
			in = 0;
			if (skip) {
				supp_clear(&x);
				continue;
			}
			if (add(s, &x, e))
				goto out;
			continue;
		}
		if (skip)
			continue;
		if (in == 1) {		/* the name */
			x.name = strdup(l);
			if (!x.name) {
				vg_errf(e, "out of memory");
				goto out;
			}
			in = 2;
			continue;
		}
		if (in == 2) {		/* TOOL:KIND */
			if (!strchr(l, ':')) {
				vg_errf_code(e, 2, "%s:%d: expected `Memcheck:Leak` (the tool and kind), got `%s`",
					     name, lineno, l);
				goto out;
			}
			skip = strcmp(l, "Memcheck:Leak") != 0;
			in = 3;
			continue;
		}
		if (!strncmp(l, "match-leak-kinds:", 17)) {
			if (kinds_of(l + 17, &x.kinds)) {
				vg_errf_code(e, 2, "%s:%d: match-leak-kinds takes definite, indirect, possible, reachable or all, separated by commas",
					     name, lineno);
				goto out;
			}
			continue;
		}
		switch (add_frame(&x, l)) {
		case -1:
			vg_errf_code(e, 2, "%s:%d: expected a frame (`fun:NAME`, `obj:PATH`, `src:FILE[:LINE]`, `...`) or `}`, got `%s`",
				     name, lineno, l);
			goto out;
		case -2:
			vg_errf(e, "out of memory");
			goto out;
		}
	}
	if (in) {
		vg_errf_code(e, 2, "%s:%d: the suppression opened at line %d has no `}`",
			     name, last, first);
		goto out;
	}
	rc = 0;
out:
	supp_clear(&x);
	free(copy);
	return rc;
}

int vg_leak_supp_load(struct vg_leak_supp *s, const char *path,
		      struct vg_err *e)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	char chunk[4096];
	int rc;

	if (!f)
		return vg_errf_code(e, 2, "--suppressions %s: %s", path,
				    strerror(errno));
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + got + 1 > cap) {
			char *nb;

			cap = (len + got + 1) * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return vg_errf(e, "out of memory");
			}
			buf = nb;
		}
		memcpy(buf + len, chunk, got);
		len += got;
	}
	fclose(f);
	if (!buf)
		return 0;	/* empty */
	buf[len] = 0;
	if (strlen(buf) != len) {
		free(buf);
		return vg_errf_code(e, 2, "--suppressions %s: not a text file",
				    path);
	}
	rc = vg_leak_supp_parse(s, path, buf, e);
	free(buf);
	return rc;
}
