/* C++ names: demangling (the C++ runtime's __cxa_demangle), the split of
 * a demangled function into its name and parameter types, and the search
 * of the program's and its libraries' symbol tables for the functions a
 * spec's name stands for (see cxxnames.h). */
#include "cxxnames.h"
#include "sym_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (cxxabi.h is C++ only) */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len,
			    int *status);

char *vg_demangle(const char *sym)
{
	char base[1024];
	size_t n;
	int status = 0;

	if (!sym || strncmp(sym, "_Z", 2))
		return NULL;
	/* .symtab spells versions in: operator new@@GLIBCXX_3.4 */
	n = strcspn(sym, "@");
	if (n >= sizeof(base))
		return NULL;
	memcpy(base, sym, n);
	base[n] = 0;
	char *d = __cxa_demangle(base, NULL, NULL, &status);

	if (status) {
		free(d);
		return NULL;
	}
	return d;
}

void vg_demangle_into(const char *sym, char *buf, size_t len)
{
	char *d = vg_demangle(sym);

	snprintf(buf, len, "%s", d ? d : sym);
	free(d);
}

bool vg_cxx_is_plain(const char *name)
{
	if (!*name || isdigit((unsigned char)*name))
		return false;
	for (const char *s = name; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* "operator" starting at s[i] as a word */
static bool operator_at(const char *s, size_t i)
{
	return !strncmp(s + i, "operator", 8) && (i == 0 || !ident_char(s[i - 1])) &&
	       !ident_char(s[i + 8]);
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

/* The '(' that matches the ')' at s[close], or -1. */
static long open_of(const char *s, size_t close)
{
	int depth = 0;

	for (long i = (long)close; i >= 0; i--) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return -1;
}

static void copy_n(char *dst, size_t dlen, const char *src, size_t n)
{
	if (!dlen)
		return;
	if (n >= dlen)
		n = dlen - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

bool vg_cxx_split(const char *d, char *qname, size_t qlen, char *params,
		  size_t plen)
{
	static const char *const not_funcs[] = {
		"non-virtual thunk to ", "virtual thunk to ",
		"covariant return thunk to ", "transaction clone for ",
		"vtable for ", "typeinfo for ", "guard variable for ",
		"construction vtable for ", "VTT for ", "typeinfo name for ",
		"TLS init function for ", "TLS wrapper function for ",
		"reference temporary ",
	};
	size_t n = strlen(d), last_space = 0, start;
	bool have_space = false;
	int depth = 0;
	long lp;

	for (size_t i = 0; i < sizeof(not_funcs) / sizeof(*not_funcs); i++)
		if (!strncmp(d, not_funcs[i], strlen(not_funcs[i])))
			return false;
	if (strstr(d, "[clone "))	/* f.cold, f.isra.0: not f itself */
		return false;
	/* method qualifiers after the parameters */
	for (bool again = true; again;) {
		static const char *const quals[] = { " const", " volatile",
						     " &&", " &", " noexcept" };

		again = false;
		for (size_t i = 0; i < sizeof(quals) / sizeof(*quals); i++)
			if (ends_with(d, n, quals[i])) {
				n -= strlen(quals[i]);
				again = true;
			}
	}
	if (!n || d[n - 1] != ')' || (lp = open_of(d, n - 1)) <= 0)
		return false;
	copy_n(params, plen, d + lp + 1, n - 2 - (size_t)lp);
	/* a function template's name has its return type before it: the
	 * last space outside <> and () that is not in the operator's name */
	for (size_t i = 0; i < (size_t)lp; i++) {
		if (operator_at(d, i))
			break;
		if (d[i] == '<' || d[i] == '(')
			depth++;
		else if ((d[i] == '>' || d[i] == ')') && depth > 0)
			depth--;
		else if (d[i] == ' ' && !depth) {
			last_space = i;
			have_space = true;
		}
	}
	start = have_space ? last_space + 1 : 0;
	/* [abi:cxx11] tags are not part of what anyone writes */
	size_t o = 0;

	for (size_t i = start; i < (size_t)lp && o + 1 < qlen;) {
		if (!strncmp(d + i, "[abi:", 5)) {
			const char *close = memchr(d + i, ']', (size_t)lp - i);

			if (close) {
				i = (size_t)(close - d) + 1;
				continue;
			}
		}
		qname[o++] = d[i++];
	}
	if (qlen)
		qname[o] = 0;
	return o > 0;
}

/* One parameter type as the demangler writes it: `const char*` ->
 * `char const*`, `const std::string&` -> `std::string const&`. */
static void canon_param(const char *p, size_t n, char *out, size_t olen)
{
	while (n && isspace((unsigned char)*p))
		p++, n--;
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n > 6 && !strncmp(p, "const", 5) && isspace((unsigned char)p[5])) {
		size_t b = 6, depth = 0;

		while (b < n && isspace((unsigned char)p[b]))
			b++;
		size_t base = b;

		for (; b < n; b++) {
			if (p[b] == '<')
				depth++;
			else if (p[b] == '>' && depth)
				depth--;
			else if (!depth && (p[b] == '*' || p[b] == '&' ||
					    p[b] == '['))
				break;
		}
		snprintf(out, olen, "%.*s const%.*s", (int)(b - base), p + base,
			 (int)(n - b), p + b);
		return;
	}
	copy_n(out, olen, p, n);
}

/* A parameter list in a form both sides share: each type canonical, no
 * whitespace, `void` alone is no parameter. */
static void canon_params(const char *s, char *out, size_t olen)
{
	char one[512], *o = out;
	int depth = 0;
	size_t start = 0, n = strlen(s);

	*out = 0;
	for (size_t i = 0; i <= n; i++) {
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && depth)
			depth--;
		if (i < n && (s[i] != ',' || depth))
			continue;
		canon_param(s + start, i - start, one, sizeof(one));
		for (char *c = one; *c && (size_t)(o - out) + 2 < olen; c++)
			if (!isspace((unsigned char)*c))
				*o++ = *c;
		if (i < n && (size_t)(o - out) + 2 < olen)
			*o++ = ',';
		*o = 0;
		start = i + 1;
	}
	if (!strcmp(out, "void"))
		*out = 0;
}

static void no_spaces(const char *s, char *out, size_t olen)
{
	size_t o = 0;

	for (; *s && o + 1 < olen; s++)
		if (!isspace((unsigned char)*s))
			out[o++] = *s;
	out[o] = 0;
}

/* Without template arguments: Box<int>::get -> Box::get; an operator's
 * own < and > stay (operator<<). */
static void strip_templates(const char *s, char *out, size_t olen)
{
	size_t o = 0;
	int depth = 0;

	for (size_t i = 0; s[i] && o + 1 < olen; i++) {
		if (!depth && operator_at(s, i)) {
			copy_n(out + o, olen - o, s + i, strlen(s + i));
			return;
		}
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth)
			depth--;
		else if (!depth)
			out[o++] = s[i];
	}
	out[o] = 0;
}

/* NAME split into its name and, when it ends with a parameter list, that
 * list (has_sig). `Queue::operator()` has none: its () is the name. */
static void split_pattern(const char *name, char *base, size_t blen,
			  char *sig, size_t slen, bool *has_sig)
{
	size_t n = strlen(name);
	long lp;

	*has_sig = false;
	while (n && isspace((unsigned char)name[n - 1]))
		n--;
	if (n && name[n - 1] == ')' && (lp = open_of(name, n - 1)) > 0) {
		size_t b = (size_t)lp;

		while (b && isspace((unsigned char)name[b - 1]))
			b--;
		if (!ends_with(name, b, "operator")) {
			copy_n(base, blen, name, b);
			copy_n(sig, slen, name + lp + 1, n - 2 - (size_t)lp);
			*has_sig = true;
			return;
		}
	}
	copy_n(base, blen, name, n);
}

/* q is p, or ends with ::p */
static bool names_match(const char *q, const char *p)
{
	size_t nq = strlen(q), np = strlen(p);

	if (nq < np || strcmp(q + nq - np, p))
		return false;
	return nq == np || (nq >= np + 2 && !strncmp(q + nq - np - 2, "::", 2));
}

bool vg_cxx_matches(const char *name, const char *qname, const char *params,
		    char *key, size_t klen)
{
	char base[512], sig[512], pn[512], qn[1024], qs[1024];
	bool has_sig;

	split_pattern(name, base, sizeof(base), sig, sizeof(sig), &has_sig);
	no_spaces(base, pn, sizeof(pn));
	no_spaces(qname, qn, sizeof(qn));
	if (!*pn)
		return false;
	if (strchr(pn, '<') && !strstr(pn, "operator")) {
		if (!names_match(qn, pn))
			return false;
		snprintf(qs, sizeof(qs), "%s", qn);
	} else {
		strip_templates(qn, qs, sizeof(qs));
		if (!names_match(qs, pn) && !names_match(qn, pn))
			return false;
		if (!names_match(qs, pn))
			snprintf(qs, sizeof(qs), "%s", qn);
	}
	if (has_sig) {
		char a[1024], b[1024];

		canon_params(sig, a, sizeof(a));
		canon_params(params, b, sizeof(b));
		if (strcmp(a, b))
			return false;
	}
	if (key)
		snprintf(key, klen, "%s", qs);
	return true;
}

/* --- the search --------------------------------------------------------- */

/* the passes of vg_libs_find_func (libs.c), in the order a call binds */
static const struct {
	bool dl;
	unsigned tabs;
	bool exported;
} passes[] = {
	{ false, VG_TAB_SYMTAB | VG_TAB_DYNSYM, false },
	{ false, VG_TAB_DYNSYM, true },
	{ false, VG_TAB_SYMTAB, false },
	{ true, VG_TAB_DYNSYM, true },
	{ true, VG_TAB_SYMTAB, false },
};

struct search {
	const char *name;
	char key[1024];		/* of the first match */
	char other[1024];	/* a second function the name matches */
	char other_sig[512], first_sig[512], first_q[1024];
	struct vg_func_where *v;
	size_t n, cap;
	/* close candidates, for "not found" */
	bool collect;
	char last[256];		/* the name's last component */
	char cands[6][256];
	size_t cand_dist[6];
	int ncands;
};

static size_t edit_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), row[64];

	if (na >= 63 || nb >= 63)
		return 99;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[nb];
}

static const char *last_component(const char *q)
{
	const char *s = q, *at = q;
	int depth = 0;

	for (size_t i = 0; s[i]; i++) {
		if (operator_at(s, i))
			break;
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth)
			depth--;
		else if (!depth && s[i] == ':' && s[i + 1] == ':')
			at = s + i + 2;
	}
	return at;
}

/* Keeps the 5 closest functions to the name: the last component equal,
 * containing it, or a few edits away; the program's first (it is
 * scanned first), long library names left out. */
static void maybe_candidate(struct search *s, const char *qname,
			    const char *params)
{
	char plain[256], full[256];
	size_t d, at;

	strip_templates(last_component(qname), plain, sizeof(plain));
	d = edit_distance(plain, s->last);
	if (d && strlen(s->last) >= 4 && strstr(plain, s->last))
		d = 1;
	if (d > (strlen(s->last) > 4 ? 2 : 1))
		return;
	if (snprintf(full, sizeof(full), "%.120s(%.120s)", qname, params) > 120)
		return;
	for (int i = 0; i < s->ncands; i++)
		if (!strcmp(s->cands[i], full))
			return;
	for (at = (size_t)s->ncands; at > 0 && s->cand_dist[at - 1] > d; at--)
		;
	if (at >= 5)
		return;
	if (s->ncands < 5)
		s->ncands++;
	memmove(&s->cands[at + 1], &s->cands[at],
		(size_t)(s->ncands - 1 - (int)at) * sizeof(s->cands[0]));
	memmove(&s->cand_dist[at + 1], &s->cand_dist[at],
		(size_t)(s->ncands - 1 - (int)at) * sizeof(s->cand_dist[0]));
	snprintf(s->cands[at], sizeof(s->cands[0]), "%s", full);
	s->cand_dist[at] = d;
}

static int add_site(struct search *s, const struct vg_libs *libs, size_t obj,
		    struct vg_elf_file *f, const GElf_Sym *sym,
		    const char *sname, struct vg_err *e)
{
	struct vg_func_where *w;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].obj == obj && s->v[i].fn.addr == sym->st_value)
			return 0;	/* C1/C2, .symtab and .dynsym */
	if (s->n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 4;
		void *p = realloc(s->v, ncap * sizeof(*s->v));

		if (!p)
			return vg_errf(e, "out of memory");
		s->v = p;
		s->cap = ncap;
	}
	w = &s->v[s->n];
	memset(w, 0, sizeof(*w));
	w->obj = obj;
	snprintf(w->path, sizeof(w->path), "%s", libs->v[obj].path);
	w->fn.addr = sym->st_value;
	w->fn.size = sym->st_size;
	w->fn.ifunc = GELF_ST_TYPE(sym->st_info) == STT_GNU_IFUNC;
	copy_n(w->sym, sizeof(w->sym), sname, strcspn(sname, "@"));
	if (vg_elf_vaddr_to_offset(f->elf, sym->st_value, &w->fn.offset))
		return 0;	/* not loadable: no probe can go there */
	s->n++;
	return 0;
}

/* operator new(unsigned long, void*) and its array and delete forms,
 * when the name has no parameter list to choose them */
static bool is_placement(const char *name, const char *qname,
			 const char *params)
{
	size_t n = strlen(params);

	if (strchr(name, '(') && strncmp(name, "operator", 8))
		return false;
	if (name[strlen(name) - 1] == ')' &&
	    !ends_with(name, strlen(name), "operator()"))
		return false;
	return (!strcmp(qname, "operator new") ||
		!strcmp(qname, "operator new[]") ||
		!strcmp(qname, "operator delete") ||
		!strcmp(qname, "operator delete[]")) &&
	       ends_with(params, n, ", void*");
}

/* The functions of one object's tables that s->name matches. */
static int scan_object(struct search *s, const struct vg_libs *libs,
		       size_t obj, unsigned tabs, bool exported,
		       struct vg_err *e)
{
	struct vg_elf_file f;
	Elf_Scn *scn = NULL;
	struct vg_err oe;
	int rc = 0;

	if (vg_elf_file_open(libs->v[obj].path, &f, &oe))
		return 0;
	while (!rc && (scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    !((sh.sh_type == SHT_SYMTAB && (tabs & VG_TAB_SYMTAB)) ||
		      (sh.sh_type == SHT_DYNSYM && (tabs & VG_TAB_DYNSYM))) ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; !rc && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *sname;
			char *d, qname[1024], params[1024], key[1024];
			int t;

			if (!gelf_getsym(data, i, &sym))
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value ||
			    (exported && GELF_ST_BIND(sym.st_info) == STB_LOCAL))
				continue;
			sname = elf_strptr(f.elf, sh.sh_link, sym.st_name);
			if (!sname || !(d = vg_demangle(sname)))
				continue;
			if (!vg_cxx_split(d, qname, sizeof(qname), params,
					  sizeof(params))) {
				free(d);
				continue;
			}
			free(d);
			if (s->collect) {
				maybe_candidate(s, qname, params);
				continue;
			}
			if (!vg_cxx_matches(s->name, qname, params, key,
					    sizeof(key)))
				continue;
			/* placement new and delete (`new (buf) T`) allocate
			 * nothing: only a parameter list names them */
			if (is_placement(s->name, qname, params))
				continue;
			/* the deleting destructor (D0) calls the complete
			 * one (D1): a probe on both would see one delete
			 * twice */
			if (last_component(qname)[0] == '~' &&
			    strstr(sname, "D0E"))
				continue;
			if (!s->key[0]) {
				snprintf(s->key, sizeof(s->key), "%s", key);
				snprintf(s->first_sig, sizeof(s->first_sig),
					 "%.500s", params);
				snprintf(s->first_q, sizeof(s->first_q), "%s",
					 qname);
			} else if (strcmp(s->key, key)) {
				if (!s->other[0]) {
					snprintf(s->other, sizeof(s->other),
						 "%s", qname);
					snprintf(s->other_sig,
						 sizeof(s->other_sig), "%.500s",
						 params);
				}
				continue;
			}
			rc = add_site(s, libs, obj, &f, &sym, sname, e);
		}
	}
	vg_elf_file_close(&f);
	return rc;
}

static int scan_all(struct search *s, const struct vg_libs *libs,
		    bool first_object_only, struct vg_err *e)
{
	for (size_t pass = 0; pass < sizeof(passes) / sizeof(*passes); pass++) {
		size_t lo = passes[pass].dl ? libs->nloaded : pass ? 1 : 0;
		size_t hi = passes[pass].dl ? libs->n : pass ? libs->nloaded : 1;

		for (size_t i = lo; i < hi; i++) {
			if (!libs->v[i].path)
				continue;
			if (scan_object(s, libs, i, passes[pass].tabs,
					passes[pass].exported, e))
				return -1;
			if (first_object_only && (s->n || s->other[0]))
				return 0;
		}
	}
	return 0;
}

static int not_found(struct search *s, const struct vg_libs *libs,
		     struct vg_err *e)
{
	char base[512], sig[512], list[1400] = "";
	bool has_sig;

	split_pattern(s->name, base, sizeof(base), sig, sizeof(sig), &has_sig);
	strip_templates(last_component(base), s->last, sizeof(s->last));
	s->collect = true;
	if (scan_all(s, libs, false, e))
		return -1;
	for (int i = 0; i < s->ncands; i++) {
		size_t at = strlen(list);

		snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "",
			 s->cands[i]);
	}
	if (s->ncands)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' not found in %s or its %zu libraries; close candidates: %s",
				    s->name, libs->v[0].path, libs->nloaded - 1,
				    list);
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "function '%s' not found in %s or its %zu libraries (no function of a close name either); if the program loads it with dlopen, name the library with --lib PATH",
			    s->name, libs->v[0].path, libs->nloaded - 1);
}

int vg_libs_find_funcs(const struct vg_libs *libs, const char *name,
		       struct vg_func_where **out, size_t *n,
		       struct vg_err *e)
{
	struct search *s;
	struct vg_err ce;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (vg_cxx_is_plain(name)) {
		struct vg_func_where *w = malloc(sizeof(*w));

		if (!w)
			return vg_errf(e, "out of memory");
		if (!vg_libs_find_func(libs, name, w, &ce)) {
			*out = w;
			*n = 1;
			return 0;
		}
		free(w);
	}
	if (!(s = calloc(1, sizeof(*s))))
		return vg_errf(e, "out of memory");
	s->name = name;
	if (scan_all(s, libs, true, e))
		goto out;
	if (s->other[0]) {
		vg_errf_code(e, VG_EXIT_USAGE,
			     "function '%s' is ambiguous in %s: it names %s(%s) and %s(%s); write the one meant with more of its name (Class::method)",
			     name, s->n ? s->v[0].path : libs->v[0].path,
			     s->first_q, s->first_sig, s->other, s->other_sig);
		goto out;
	}
	if (!s->n) {
		if (vg_cxx_is_plain(name))
			*e = ce;	/* a C function's own message */
		else
			not_found(s, libs, e);
		goto out;
	}
	*out = s->v;
	*n = s->n;
	s->v = NULL;
	rc = 0;
out:
	free(s->v);
	free(s);
	return rc;
}
