/* The spec object: loading (files, includes, all-or-nothing), the string
 * table, lookups, and freeing. Parsing is parser.c, names and bytecode are
 * compile.c, warnings are lint.c. */
#include "spec_internal.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct vg_spec_priv {
	/* interned strings: id = index; id 0 is "", the value of a string
	 * variable nobody assigned */
	char **strs;
	uint64_t nstrs, capstrs;
	uint32_t *hash;		/* id + 1, 0 = empty slot */
	size_t hcap;
	/* file names that vg_loc.file points to, and realpaths loaded */
	char **files;
	int nfiles;
	char **paths;
	int npaths;
	struct vg_defines *defs;	/* -D NAME=VALUE (params.c) */
	char **fast;			/* `fast` lines' functions */
	int nfast;
};

/* ---- strings ---------------------------------------------------------- */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void hash_insert(struct vg_spec_priv *pv, uint64_t id)
{
	size_t i = hash_str(pv->strs[id]) & (pv->hcap - 1);

	while (pv->hash[i])
		i = (i + 1) & (pv->hcap - 1);
	pv->hash[i] = (uint32_t)id + 1;
}

static int rehash(struct vg_spec_priv *pv, size_t cap)
{
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	free(pv->hash);
	pv->hash = h;
	pv->hcap = cap;
	for (uint64_t id = 0; id < pv->nstrs; id++)
		hash_insert(pv, id);
	return 0;
}

/* UINT64_MAX when out of memory. */
uint64_t vg_spec_intern(struct vg_spec *spec, const char *s)
{
	struct vg_spec_priv *pv = spec->priv;
	char *copy;

	if (pv->hcap) {
		size_t i = hash_str(s) & (pv->hcap - 1);

		for (; pv->hash[i]; i = (i + 1) & (pv->hcap - 1))
			if (!strcmp(pv->strs[pv->hash[i] - 1], s))
				return pv->hash[i] - 1;
	}
	if ((pv->nstrs + 1) * 2 > pv->hcap &&
	    rehash(pv, pv->hcap ? pv->hcap * 2 : 64))
		return UINT64_MAX;
	if (pv->nstrs == pv->capstrs) {
		uint64_t cap = pv->capstrs ? pv->capstrs * 2 : 32;
		char **n = realloc(pv->strs, cap * sizeof(*n));

		if (!n)
			return UINT64_MAX;
		pv->strs = n;
		pv->capstrs = cap;
	}
	copy = strdup(s);
	if (!copy)
		return UINT64_MAX;
	pv->strs[pv->nstrs] = copy;
	hash_insert(pv, pv->nstrs);
	return pv->nstrs++;
}

const char *vg_spec_string(const struct vg_spec *spec, uint64_t id)
{
	if (!spec || id >= spec->priv->nstrs)
		return NULL;
	return spec->priv->strs[id];
}

uint64_t vg_spec_nstrings(const struct vg_spec *spec)
{
	return spec->priv->nstrs;
}

void vg_spec_truncate_strings(struct vg_spec *spec, uint64_t n)
{
	struct vg_spec_priv *pv = spec->priv;

	if (n >= pv->nstrs)
		return;
	while (pv->nstrs > n)
		free(pv->strs[--pv->nstrs]);
	memset(pv->hash, 0, pv->hcap * sizeof(*pv->hash));
	for (uint64_t id = 0; id < pv->nstrs; id++)
		hash_insert(pv, id);
}

/* ---- the spec --------------------------------------------------------- */

struct vg_spec *vg_spec_new(void)
{
	struct vg_spec *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->priv = calloc(1, sizeof(*s->priv));
	if (!s->priv || vg_spec_intern(s, "") != 0) {
		vg_spec_free(s);
		return NULL;
	}
	return s;
}

void vg_property_release(struct vg_property *p)
{
	free(p->name);
	free(p->description);
	for (int i = 0; i < VG_MAX_PARAMS; i++)
		free(p->params[i]);
	for (int i = 0; i < p->nvars; i++)
		free(p->vars[i].name);
	free(p->vars);
	for (int i = 0; i < p->nglobals; i++)
		free(p->globals[i].name);
	free(p->globals);
	for (int i = 0; i < p->nstates; i++)
		free(p->states[i].name);
	free(p->states);
	free(p->trans);
	free(p->bindings);
	for (int i = 0; i < p->nreactions; i++) {
		for (int j = 0; j < p->reactions[i].nactions; j++)
			free(p->reactions[i].actions[j].arg);
		free(p->reactions[i].actions);
	}
	free(p->reactions);
	free(p->code);
}

void vg_spec_free(struct vg_spec *spec)
{
	struct vg_spec_priv *pv;

	if (!spec)
		return;
	for (int i = 0; i < spec->nprops; i++)
		vg_property_release(&spec->props[i]);
	free(spec->props);
	for (int i = 0; i < spec->nevents; i++) {
		free(spec->events[i].name);
		free(spec->events[i].ccode);
	}
	free(spec->events);
	pv = spec->priv;
	if (pv) {
		vg_spec_truncate_strings(spec, 0);
		free(pv->strs);
		free(pv->hash);
		for (int i = 0; i < pv->nfiles; i++)
			free(pv->files[i]);
		free(pv->files);
		for (int i = 0; i < pv->npaths; i++)
			free(pv->paths[i]);
		free(pv->paths);
		vg_defines_free(pv->defs);
		for (int i = 0; i < pv->nfast; i++)
			free(pv->fast[i]);
		free(pv->fast);
		free(pv);
	}
	free(spec);
}

struct vg_defines **vg_spec_defines(const struct vg_spec *spec)
{
	return &spec->priv->defs;
}

const char *vg_spec_fast(const struct vg_spec *spec, int i)
{
	return spec && spec->priv && i >= 0 && i < spec->priv->nfast
	       ? spec->priv->fast[i] : NULL;
}

const char *vg_spec_file(const struct vg_spec *spec, int i)
{
	return i >= 0 && i < spec->priv->npaths ? spec->priv->paths[i] : NULL;
}

bool vg_spec_has_file(const struct vg_spec *spec, const char *realpath)
{
	for (int i = 0; i < spec->priv->npaths; i++)
		if (!strcmp(spec->priv->paths[i], realpath))
			return true;
	return false;
}

/* ---- load context helpers --------------------------------------------- */

static const char *source_line(struct vg_ld *ld, struct vg_loc loc,
			       size_t *len)
{
	for (int i = 0; i < ld->nsrcs; i++) {
		const char *p = ld->srcs[i].text, *end = p + ld->srcs[i].len;

		if (ld->srcs[i].name != loc.file)
			continue;
		for (int l = 1; l < loc.line && p < end; p++)
			if (*p == '\n')
				l++;
		*len = 0;
		while (p + *len < end && p[*len] != '\n' && p[*len])
			(*len)++;
		return p;
	}
	return NULL;
}

void vg_ld_error(struct vg_ld *ld, struct vg_loc loc, const char *fmt, ...)
{
	char what[1024], caret[300];
	const char *line;
	size_t len = 0, n = 0, start = 0, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	line = source_line(ld, loc, &len);
	if (!line) {
		vg_errf_code(ld->err, VG_EXIT_USAGE, "%s:%d:%d: error: %s\n",
			     loc.file ? loc.file : "?", loc.line, loc.col, what);
		longjmp(ld->jb, 1);
	}
	col = loc.col > 0 ? (size_t)loc.col - 1 : 0;
	/* a long line is shown as a window around the column */
	if (col > 160)
		start = col - 80;
	if (start) {
		memcpy(caret, "   ", 3);
		n = 3;
	}
	for (size_t i = start; i < col && n < sizeof(caret) - 2; i++)
		caret[n++] = i < len && line[i] == '\t' ? '\t' : ' ';
	caret[n++] = '^';
	caret[n] = 0;
	vg_errf_code(ld->err, VG_EXIT_USAGE,
		     "%s:%d:%d: error: %s\n%s%.*s\n%s\n", loc.file, loc.line,
		     loc.col, what, start ? "..." : "",
		     (int)(len - (start < len ? start : len) > 240
			   ? 240 : len - (start < len ? start : len)),
		     line + (start < len ? start : len), caret);
	longjmp(ld->jb, 1);
}

void vg_ld_oom(struct vg_ld *ld)
{
	vg_errf_code(ld->err, VG_EXIT_RUNTIME, "out of memory loading the spec");
	longjmp(ld->jb, 1);
}

void *vg_ld_xcalloc(struct vg_ld *ld, size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		vg_ld_oom(ld);
	return p;
}

char *vg_ld_xstrdup(struct vg_ld *ld, const char *s)
{
	char *p = strdup(s);

	if (!p)
		vg_ld_oom(ld);
	return p;
}

void *vg_ld_alloc(struct vg_ld *ld, size_t n)
{
	void *p = vg_arena_alloc(&ld->arena, n);

	if (!p)
		vg_ld_oom(ld);
	return p;
}

char *vg_ld_strndup(struct vg_ld *ld, const char *s, size_t n)
{
	char *p = vg_arena_strndup(&ld->arena, s, n);

	if (!p)
		vg_ld_oom(ld);
	return p;
}

void *vg_ld_grow(struct vg_ld *ld, void *arr, int *cap, int need, size_t sz)
{
	void *p = vg_arena_grow(&ld->arena, arr, cap, need, sz);

	if (!p)
		vg_ld_oom(ld);
	return p;
}

/* malloc'd lists of the load context */
static void push_str(struct vg_ld *ld, char ***arr, int *n, int *cap, char *s)
{
	if (*n == *cap) {
		int ncap = *cap ? *cap * 2 : 8;
		char **a = realloc(*arr, (size_t)ncap * sizeof(*a));

		if (!a) {
			free(s);
			vg_ld_oom(ld);
		}
		*arr = a;
		*cap = ncap;
	}
	(*arr)[(*n)++] = s;
}

static int add_src(struct vg_ld *ld, char *name, char *text, size_t len)
{
	if (ld->nsrcs == ld->capsrcs) {
		int ncap = ld->capsrcs ? ld->capsrcs * 2 : 4;
		struct vg_src *a = realloc(ld->srcs, (size_t)ncap * sizeof(*a));

		if (!a) {
			free(name);
			free(text);
			vg_ld_oom(ld);
		}
		ld->srcs = a;
		ld->capsrcs = ncap;
	}
	ld->srcs[ld->nsrcs] = (struct vg_src){ name, text, len };
	return ld->nsrcs++;
}

static bool in_list(char **l, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(l[i], s))
			return true;
	return false;
}

/* The largest spec file read: the property library is a few KiB; past
 * this a file is data given by mistake, and reading it would only cost
 * memory before the first syntax error. */
#define VG_SPEC_MAX_BYTES (4u << 20)
#define VG_SPEC_MAX_TEXT "4 MiB"

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n > VG_SPEC_MAX_BYTES) {	/* not a spec: a data file */
			free(buf);
			fclose(f);
			errno = EFBIG;
			return NULL;
		}
		if (n + 4096 + 1 > cap) {
			char *b;

			cap = cap ? cap * 2 : 8192;
			b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = b;
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);

		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		int err = errno;

		free(buf);
		fclose(f);
		errno = err ? err : EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

_Noreturn static void fail_at(struct vg_ld *ld, const struct vg_loc *at,
			      const char *what, const char *path, int err)
{
	const char *why = err == EFBIG
		? "larger than " VG_SPEC_MAX_TEXT ", not a spec file"
		: strerror(err);

	if (at)
		vg_ld_error(ld, *at, "cannot %s '%s': %s", what, path, why);
	vg_errf_code(ld->err, VG_EXIT_USAGE, "%s: error: cannot %s: %s\n",
		     path, what, why);
	longjmp(ld->jb, 1);
}

void vg_ld_include(struct vg_ld *ld, const char *path, const struct vg_loc *at)
{
	char *full, *rp, *text;
	size_t len = 0;
	struct stat st;
	int src;

	/* relative to the including file */
	if (at && path[0] != '/' && strchr(at->file, '/')) {
		char *dir = vg_ld_xstrdup(ld, at->file);
		const char *d = dirname(dir);

		if (asprintf(&full, "%s/%s", d, path) < 0)
			full = NULL;
		free(dir);
		if (!full)
			vg_ld_oom(ld);
	} else {
		full = vg_ld_xstrdup(ld, path);
	}
	rp = realpath(full, NULL);
	if (!rp) {
		int err = errno;
		char *shown = vg_ld_strndup(ld, full, strlen(full));

		free(full);
		fail_at(ld, at, "open", shown, err);
	}
	if (in_list(ld->stack, ld->nstack, rp)) {
		free(rp);
		free(full);
		vg_ld_error(ld, *at, "include cycle: '%s' is already being loaded, expected a file not among its own includes",
			    path);
	}
	if (in_list(ld->loaded, ld->nloaded, rp) ||
	    vg_spec_has_file(ld->spec, rp)) {
		free(rp);
		free(full);
		return;
	}
	push_str(ld, &ld->loaded, &ld->nloaded, &ld->caploaded, rp);
	/* a FIFO or a device would block or never end */
	if (stat(rp, &st) == 0 && !S_ISREG(st.st_mode)) {
		char *shown = vg_ld_strndup(ld, full, strlen(full));

		free(full);
		if (at)
			vg_ld_error(ld, *at, "cannot read '%s': not a regular file, expected a spec file",
				    shown);
		vg_errf_code(ld->err, VG_EXIT_USAGE, "%s: error: cannot read: not a regular file\n",
			     shown);
		longjmp(ld->jb, 1);
	}
	text = read_all(full, &len);
	if (!text) {
		int err = errno;
		char *shown = vg_ld_strndup(ld, full, strlen(full));

		free(full);
		fail_at(ld, at, "read", shown, err);
	}
	src = add_src(ld, full, text, len);
	push_str(ld, &ld->stack, &ld->nstack, &ld->capstack,
		 vg_ld_xstrdup(ld, rp));
	vg_parse_src(ld, src);
	free(ld->stack[--ld->nstack]);
}

/* Success: the spec takes the new properties, events and file names. */
void vg_spec_adopt(struct vg_spec *spec, struct vg_ld *ld)
{
	struct vg_spec_priv *pv = spec->priv;
	struct vg_property *props;
	char **files, **paths;

	props = realloc(spec->props,
			(size_t)(spec->nprops + ld->nout + 1) * sizeof(*props));
	if (!props)
		vg_ld_oom(ld);
	spec->props = props;
	files = realloc(pv->files, (size_t)(pv->nfiles + ld->nsrcs + 1) * sizeof(*files));
	if (!files)
		vg_ld_oom(ld);
	pv->files = files;
	paths = realloc(pv->paths, (size_t)(pv->npaths + ld->nloaded + 1) * sizeof(*paths));
	if (!paths)
		vg_ld_oom(ld);
	pv->paths = paths;

	/* nothing below can fail */
	memcpy(spec->props + spec->nprops, ld->out, (size_t)ld->nout * sizeof(*props));
	spec->nprops += ld->nout;
	free(ld->out);
	ld->out = NULL;
	ld->nout = 0;
	free(spec->events);	/* the names live on in ld->events */
	spec->events = ld->events;
	spec->nevents = ld->nevents;
	ld->events = NULL;
	ld->nevents = ld->old_nevents = 0;
	for (int i = 0; i < ld->nsrcs; i++) {
		pv->files[pv->nfiles++] = ld->srcs[i].name;
		ld->srcs[i].name = NULL;
	}
	for (int i = 0; i < ld->nloaded; i++)
		pv->paths[pv->npaths++] = ld->loaded[i];
	ld->nloaded = 0;
	for (int i = 0; i < ld->nfast; i++) {
		char **a = realloc(pv->fast, (size_t)(pv->nfast + 1) * sizeof(*a));

		if (!a || !(a[pv->nfast] = strdup(ld->fast[i]))) {
			pv->fast = a ? a : pv->fast;
			break;	/* the function keeps its uprobe */
		}
		pv->fast = a;
		pv->nfast++;
	}
	vg_params_adopt(spec, ld);
}

static void ld_release(struct vg_ld *ld)
{
	for (int i = 0; i < ld->nsrcs; i++) {
		free(ld->srcs[i].name);
		free(ld->srcs[i].text);
	}
	free(ld->srcs);
	for (int i = 0; i < ld->nstack; i++)
		free(ld->stack[i]);
	free(ld->stack);
	for (int i = 0; i < ld->nloaded; i++)
		free(ld->loaded[i]);
	free(ld->loaded);
	for (int i = 0; i < ld->nout; i++)
		vg_property_release(&ld->out[i]);
	free(ld->out);
	/* events below old_nevents share their names and code with the spec */
	for (int i = ld->old_nevents; i < ld->nevents; i++) {
		free(ld->events[i].name);
		free(ld->events[i].ccode);
	}
	free(ld->events);
	vg_arena_free(&ld->arena);
	free(ld);
}

static int load(struct vg_spec *spec, const char *name, const char *text,
		struct vg_err *e)
{
	struct vg_ld *ld = calloc(1, sizeof(*ld));
	uint64_t nstrs = vg_spec_nstrings(spec);

	if (!ld)
		return vg_errf(e, "out of memory loading the spec");
	ld->spec = spec;
	ld->err = e;
	if (setjmp(ld->jb)) {
		ld_release(ld);
		vg_spec_truncate_strings(spec, nstrs);
		return -1;
	}
	if (text) {
		char *n = vg_ld_xstrdup(ld, name);
		size_t len = strlen(text);
		char *t = malloc(len + 1);

		if (!t) {
			free(n);
			vg_ld_oom(ld);
		}
		memcpy(t, text, len + 1);
		vg_parse_src(ld, add_src(ld, n, t, len));
	} else {
		vg_ld_include(ld, name, NULL);
	}
	vg_compile(ld);
	vg_spec_adopt(spec, ld);
	ld_release(ld);
	return 0;
}

int vg_spec_load_file(struct vg_spec *spec, const char *path, struct vg_err *e)
{
	return load(spec, path, NULL, e);
}

int vg_spec_load_string(struct vg_spec *spec, const char *name,
			const char *text, struct vg_err *e)
{
	return load(spec, name ? name : "<string>", text ? text : "", e);
}

/* ---- lookups ---------------------------------------------------------- */

int vg_spec_find_event(const struct vg_spec *spec, enum vg_event_kind kind,
		       const char *name)
{
	for (int i = 0; i < spec->nevents; i++)
		if (spec->events[i].kind == kind &&
		    !strcmp(spec->events[i].name, name ? name : ""))
			return i;
	return -1;
}

int vg_property_find_state(const struct vg_property *p, const char *name)
{
	for (int i = 0; i < p->nstates; i++)
		if (!strcmp(p->states[i].name, name))
			return i;
	return -1;
}

const struct vg_binding *vg_property_binding(const struct vg_property *p,
					     int event)
{
	for (int i = 0; i < p->nbindings; i++)
		if (p->bindings[i].event == event)
			return &p->bindings[i];
	return NULL;
}

bool vg_property_state_has_action(const struct vg_property *p, int state,
				  bool on_enter, enum vg_action_kind kind)
{
	for (int i = 0; i < p->nreactions; i++) {
		const struct vg_reaction *r = &p->reactions[i];

		if (r->state != state || r->on_enter != on_enter)
			continue;
		for (int j = 0; j < r->nactions; j++)
			if (r->actions[j].kind == kind)
				return true;
	}
	return false;
}

bool vg_property_backtraces(const struct vg_property *p)
{
	for (int i = 0; i < p->nreactions; i++)
		for (int j = 0; j < p->reactions[i].nactions; j++)
			if (p->reactions[i].actions[j].kind == VG_ACT_BACKTRACE)
				return true;
	return false;
}

bool vg_property_state_watches(const struct vg_property *p, int state)
{
	return vg_property_state_has_action(p, state, true, VG_ACT_WATCH);
}

const char *vg_event_kind_name(enum vg_event_kind k)
{
	static const char *const names[] = {
		[VG_EV_BEFORE] = "before", [VG_EV_AFTER] = "after",
		[VG_EV_WRITE] = "write", [VG_EV_READ] = "read",
		[VG_EV_ACCESS] = "access", [VG_EV_CHANGE] = "change",
		[VG_EV_SYSCALL] = "syscall", [VG_EV_EXIT] = "exit",
		[VG_EV_SIGNAL] = "signal", [VG_EV_THREAD_START] = "thread_start",
		[VG_EV_THREAD_EXIT] = "thread_exit", [VG_EV_NAMED] = "event",
		[VG_EV_TIMEOUT] = "timeout",
	};

	if ((unsigned)k < sizeof(names) / sizeof(names[0]) && names[k])
		return names[k];
	return "?";
}

const char *vg_state_kind_name(enum vg_state_kind k)
{
	switch (k) {
	case VG_STATE_ACCEPTING: return "accepting";
	case VG_STATE_NONACCEPTING: return "nonaccepting";
	case VG_STATE_VIOLATION: return "violation";
	}
	return "?";
}

bool vg_event_is_watch(const struct vg_event *ev)
{
	return ev->kind == VG_EV_WRITE || ev->kind == VG_EV_READ ||
	       ev->kind == VG_EV_ACCESS;
}

bool vg_event_watches(const struct vg_event *ev)
{
	return vg_event_is_watch(ev) || ev->kind == VG_EV_CHANGE;
}

bool vg_spec_watches(const struct vg_spec *spec)
{
	for (int i = 0; i < spec->nevents; i++)
		if (vg_event_watches(&spec->events[i]))
			return true;
	return false;
}

bool vg_prop_binds(const struct vg_spec *spec, int k, int i)
{
	for (int b = 0; b < spec->props[k].nbindings; b++)
		if (spec->props[k].bindings[b].event == i)
			return true;
	return false;
}

bool vg_spec_binds(const struct vg_spec *spec, int i)
{
	for (int k = 0; k < spec->nprops; k++)
		if (vg_prop_binds(spec, k, i))
			return true;
	return false;
}

bool vg_event_watches_slice(const struct vg_event *ev)
{
	return vg_event_watches(ev) && ev->wloc.per_slice;
}

int vg_watch_name(const struct vg_property *p, const char *name,
		  bool *is_var)
{
	for (int i = 0; i < p->nparams; i++)
		if (!strcmp(p->params[i], name)) {
			*is_var = false;
			return i;
		}
	for (int i = 0; i < p->nvars; i++)
		if (!strcmp(p->vars[i].name, name)) {
			*is_var = true;
			return i;
		}
	return -1;
}
