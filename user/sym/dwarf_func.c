/* DWARF functions (user/sym/dwarf.h): addresses, prototypes and globals.
 * Where each parameter is at entry is dwarf_abi.c's. */
#include "cxxnames.h"
#include "dwarf_internal.h"
#include "proto_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- functions ------------------------------------------------------------ */

static int count_params(struct vg_dwarf *dw, Dwarf_Die die, bool *constant)
{
	Dwarf_Die c;
	int n = 0;

	for (bool ok = dw_child(dw, die, &c); ok; ok = dw_next(dw, &c)) {
		if (dw_tag(dw, c) != DW_TAG_formal_parameter)
			continue;
		n++;
		if (constant && dw_has(dw, c, DW_AT_const_value))
			*constant = true;
	}
	return n;
}

/* Without symbols to name it, is this concrete copy of an abstract
 * function a specialised clone? A clone's DWARF lists a parameter it no
 * longer takes with a constant value (constprop), or not at all (isra). */
static bool looks_cloned(struct vg_dwarf *dw, uint64_t off)
{
	Dwarf_Die die, ab;
	bool constant = false;
	int n, nab;

	if (!dw_die(dw, off, &die))
		return false;
	n = count_params(dw, die, &constant);
	if (dw_origin(dw, die, &ab)) {
		nab = count_params(dw, ab, NULL);
		dwarf_dealloc_die(ab);
		if (nab != n)
			constant = true;
	}
	dwarf_dealloc_die(die);
	return constant;
}

static int func_from_dwarf(struct vg_dwarf *dw, const char *name,
			   struct vg_func *out, enum vg_nofunc *why,
			   struct vg_err *e)
{
	char clone[256], at[256];
	bool has_symtab = dw->f.elf &&
			  vg_elf_has_section(dw->f.elf, ".symtab");
	bool inl = false, decl = false, ranges = false;
	const struct dw_ent *pick = NULL;
	size_t lo, hi;

	vg_elf_find_clone(dw->f.elf, name, clone, sizeof(clone));
	dw_ent_range(dw, name, ENT_FUNC, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct dw_ent *en = &dw->ents[i];

		inl |= (en->flags & EF_INLINE) != 0;
		decl |= (en->flags & EF_DECL) != 0;
		ranges |= (en->flags & EF_RANGES) != 0;
		if (!(en->flags & EF_PC))
			continue;
		if (!(en->flags & EF_ORIGIN)) {
			pick = en;	/* its own name: the real thing */
			break;
		}
		/* a concrete copy named through its abstract origin is
		 * either the out-of-line copy of an inlined function or a
		 * clone with another ABI; the symbol at its address says
		 * which, when there are symbols */
		if (has_symtab && vg_elf_func_at(dw->f.elf, en->pc, at,
						 sizeof(at))) {
			if (strcmp(at, name) && !clone[0])
				snprintf(clone, sizeof(clone), "%s", at);
			continue;
		}
		if (looks_cloned(dw, en->off)) {
			if (!clone[0])
				snprintf(clone, sizeof(clone),
					 "%s at 0x%llx", name,
					 (unsigned long long)en->pc);
			continue;
		}
		if (!pick)
			pick = en;
	}
	*why = VG_NOFUNC_OTHER;
	if (pick) {
		out->addr = pick->pc;
		/* no symbol has it (vg_libs_find_func looked in the debug
		 * file's .symtab first): its size is not known */
		out->size = 0;
		out->source = VG_SRC_DWARF;
		out->ifunc = false;
		if (vg_elf_vaddr_to_offset(dw->f.elf, out->addr, &out->offset))
			return vg_errf(e, "function '%s' in %s: address 0x%llx is in no loadable segment",
				       name, dw->path,
				       (unsigned long long)out->addr);
		return 0;
	}
	*why = clone[0] ? VG_NOFUNC_CLONED :
	       inl	  ? VG_NOFUNC_INLINED :
	       ranges	  ? VG_NOFUNC_OTHER :
	       decl	  ? VG_NOFUNC_DECLARED :
			    VG_NOFUNC_ABSENT;
	if (clone[0])
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' in %s exists only as the compiler-made copy '%s', whose parameters differ from the source; mark it __attribute__((noipa)) to probe it",
				    name, dw->path, clone);
	if (inl)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' in %s is inlined everywhere; it has no address to probe (mark it __attribute__((noinline)) to give it one)",
				    name, dw->path);
	if (ranges)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' in %s has no symbol, and DWARF gives its code as several ranges with no single entry address",
				    name, dw->path);
	if (decl)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' is only declared in %s, not defined: it lives in a shared library",
				    name, dw->path);
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "function '%s' not found in %s (looked in .symtab, .dynsym%s)",
			    name, dw->path,
			    dw->dbg	  ? " and DWARF" :
			    dw->problem ? "; its DWARF is unreadable" :
					  "; it has no DWARF");
}

int vg_dwarf_func(struct vg_dwarf *dw, const char *name, struct vg_func *out,
		  struct vg_err *e)
{
	enum vg_nofunc why;

	return vg_dwarf_func_why(dw, name, out, &why, e);
}

int vg_dwarf_func_why(struct vg_dwarf *dw, const char *name,
		      struct vg_func *out, enum vg_nofunc *why,
		      struct vg_err *e)
{
	GElf_Sym sym;
	int tab;

	memset(out, 0, sizeof(*out));
	*why = VG_NOFUNC_OTHER;
	tab = vg_elf_lookup(dw->f.elf, VG_TAB_SYMTAB | VG_TAB_DYNSYM, name,
			    VG_SYM_FUNC, false, &sym);
	if (!tab)
		return func_from_dwarf(dw, name, out, why, e);
	out->addr = sym.st_value;
	out->size = sym.st_size;
	out->source = tab == VG_TAB_SYMTAB ? VG_SRC_SYMTAB : VG_SRC_DYNSYM;
	out->ifunc = GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC;
	if (vg_elf_vaddr_to_offset(dw->f.elf, out->addr, &out->offset))
		return vg_errf(e, "function '%s' in %s: address 0x%llx is in no loadable segment",
			       name, dw->path, (unsigned long long)out->addr);
	return 0;
}

int vg_dwarf_func_fallback(const char *binary, struct vg_elf_file *f,
			   const char *name, struct vg_func *out,
			   struct vg_err *e)
{
	struct vg_dwarf *dw;
	enum vg_nofunc why;
	int r;

	(void)f;
	if (!(dw = vg_dwarf_open(binary, e)))
		return -1;
	r = func_from_dwarf(dw, name, out, &why, e);
	vg_dwarf_close(dw);
	return r;
}

static const struct dw_ent *pick_func(struct vg_dwarf *dw, const char *name)
{
	const struct dw_ent *best = NULL;
	int best_rank = 99;
	size_t lo, hi;

	/* the definition with its own name, then a concrete copy, then the
	 * abstract instance of an inlined one, then a declaration */
	dw_ent_range(dw, name, ENT_FUNC, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct dw_ent *en = &dw->ents[i];
		int rank = (en->flags & EF_PC) ?
				   ((en->flags & EF_ORIGIN) ? 1 : 0) :
			   (en->flags & EF_DECL) ? 3 : 2;

		if (rank < best_rank) {
			best = en;
			best_rank = rank;
		}
	}
	return best;
}

/* An alias (malloc is __libc_malloc in glibc's DWARF, a symbol made with
 * __attribute__((alias))): the definition at the symbol's address. */
static const struct dw_ent *func_at_symbol(struct vg_dwarf *dw,
					   const char *name)
{
	const struct dw_ent *best = NULL;
	GElf_Sym sym;

	if (!vg_elf_lookup(dw->f.elf, VG_TAB_SYMTAB | VG_TAB_DYNSYM, name,
			   VG_SYM_FUNC, false, &sym))
		return NULL;
	/* its compilation unit alone, when the index is not built yet */
	if (!dw->indexed && (best = dw_func_at_addr(dw, sym.st_value)))
		return best;
	dw_index(dw);
	for (size_t i = 0; i < dw->nents; i++) {
		const struct dw_ent *en = &dw->ents[i];

		if (en->kind != ENT_FUNC || !(en->flags & EF_PC) ||
		    en->pc != sym.st_value)
			continue;
		if (!(en->flags & EF_ORIGIN))
			return en;
		if (!best)
			best = en;
	}
	return best;
}

/* The DIE whose children are the source parameters: the abstract
 * instance for a concrete copy of an inlined function, the DIE itself
 * otherwise (a definition, or a declaration). */
static Dwarf_Die param_die(struct vg_dwarf *dw, Dwarf_Die die)
{
	uint64_t o;
	Dwarf_Die ab;

	if (dw_ref(dw, die, DW_AT_abstract_origin, &o) && dw_die(dw, o, &ab))
		return ab;
	return NULL;
}

static int not_in_dwarf(struct vg_dwarf *dw, const char *name,
			struct vg_err *e)
{
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "function '%s' not found in the DWARF of %s%s%s",
			    name, dw->path, dw->problem ? ": " : "",
			    dw->problem ? dw->problem : "");
}

/* *absent: the function is not in this DWARF (which was read whole);
 * *unusable: it is, and the x86-64 ABI cannot place its parameters or
 * return value (glibc's assembly string functions, whose DWARF types
 * are none): an answer of the DWARF alone, as a prototype is */
static int proto_from_dwarf(struct vg_dwarf *dw, const char *name,
			    struct vg_proto *out, bool *absent,
			    bool *unusable, struct vg_err *e)
{
	const struct dw_ent *en;
	Dwarf_Die die, pdie, c;
	uint64_t v;
	size_t cap = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (dw_need_debug(dw, "the parameters of functions", e))
		return -1;
	/* the definition at the symbol's address first: it is the code a
	 * probe on NAME runs, even when static functions of several files
	 * share the name or NAME is an alias; then by name */
	if (!(en = func_at_symbol(dw, name)))
		en = pick_func(dw, name);
	if (!en) {
		*absent = !dw->problem;
		return not_in_dwarf(dw, name, e);
	}
	if (!dw_die(dw, en->off, &die))
		return vg_errf(e, "function '%s' in %s: unreadable DWARF",
			       name, dw->path);
	/* messages name a C++ function as its author wrote it */
	if (!(out->func = vg_demangle(name)) && !(out->func = strdup(name)))
		goto oom;
	out->from_decl = (en->flags & EF_DECL) != 0;
	if (dw_udata_follow(dw, die, DW_AT_calling_convention, &v) &&
	    v == DW_CC_nocall)
		out->nocall = true;
	if (dw_ref_follow(dw, die, DW_AT_type, &v)) {
		out->has_ret = true;
		if (dw_describe(dw, v, &out->ret, 0, e))
			goto out;
	}
	pdie = param_die(dw, die);
	for (bool ok = dw_child(dw, pdie ? pdie : die, &c); ok;
	     ok = dw_next(dw, &c)) {
		int tag = dw_tag(dw, c);
		struct vg_param *pa;
		const char *pname;
		bool via;
		uint64_t t = 0;

		if (tag == DW_TAG_unspecified_parameters)
			out->variadic = true;
		if (tag != DW_TAG_formal_parameter)
			continue;
		if (out->nparams == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			void *np = realloc(out->params,
					   ncap * sizeof(*out->params));

			if (!np) {
				dwarf_dealloc_die(c);
				goto oom_pdie;
			}
			out->params = np;
			cap = ncap;
		}
		pa = &out->params[out->nparams++];
		memset(pa, 0, sizeof(*pa));
		pname = dw_name_follow(dw, c, &via);
		if (pname && !(pa->name = strdup(pname))) {
			dwarf_dealloc_die(c);
			goto oom_pdie;
		}
		dw_ref_follow(dw, c, DW_AT_type, &t);
		if (dw_describe(dw, t, &pa->type, 0, e)) {
			dwarf_dealloc_die(c);
			if (pdie)
				dwarf_dealloc_die(pdie);
			goto out;
		}
	}
	if (pdie)
		dwarf_dealloc_die(pdie);
	if (dw_locate_params(dw, out, e)) {
		*unusable = true;
		goto out;
	}
	ret = 0;
	goto out;
oom_pdie:
	if (pdie)
		dwarf_dealloc_die(pdie);
oom:
	vg_errf(e, "out of memory");
out:
	dwarf_dealloc_die(die);
	if (ret)
		vg_proto_free(out);
	return ret;
}

/* A message of this binary's for the cache, which another copy of the
 * same build shares: its path becomes BINARY, and back */
#define BINARY "{binary}"

static char *subst(const char *msg, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to), n = 0;
	const char *at;
	char *out, *w;

	for (at = msg; nf && (at = strstr(at, from)); at += nf)
		n++;
	if (!(out = malloc(strlen(msg) + n * nt + 1)))
		return NULL;
	for (w = out; nf && (at = strstr(msg, from)); msg = at + nf) {
		memcpy(w, msg, (size_t)(at - msg));
		w += at - msg;
		memcpy(w, to, nt);
		w += nt;
	}
	strcpy(w, msg);
	return out;
}

static void cache_unusable(struct vg_dwarf *dw, const char *name,
			   const char *msg)
{
	char *why = subst(msg, dw->path, BINARY);

	if (why)
		vg_proto_cache_put_unusable(dw->pcache, name, why);
	free(why);
}

static int unusable_error(struct vg_dwarf *dw, const char *why,
			  struct vg_err *e)
{
	char *msg = subst(why, BINARY, dw->path);

	if (!msg)
		return vg_errf(e, "out of memory");
	vg_errf(e, "%s", msg);
	free(msg);
	return -1;
}

/* The cache of a separate debug file first (it may spare opening it);
 * what DWARF answers goes into it: a prototype, or "not found" from a
 * debug file that was read whole (not an unreadable one, nor a failure
 * such as out of memory) */
int vg_dwarf_proto(struct vg_dwarf *dw, const char *name,
		   struct vg_proto *out, struct vg_err *e)
{
	bool absent = false, unusable = false;
	const char *why = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	switch (vg_proto_cache_get(dw->pcache, name, out, &why)) {
	case VG_PC_PROTO:
		return 0;
	case VG_PC_ABSENT:
		return not_in_dwarf(dw, name, e);
	case VG_PC_UNUSABLE:
		return unusable_error(dw, why, e);
	case VG_PC_MISS:
		break;
	}
	rc = proto_from_dwarf(dw, name, out, &absent, &unusable, e);
	if (!rc || absent)
		vg_proto_cache_put(dw->pcache, name, rc ? NULL : out);
	else if (unusable)	/* else a failure to read, not an answer */
		cache_unusable(dw, name, e->msg);
	return rc;
}

void vg_proto_free(struct vg_proto *p)
{
	for (size_t i = 0; i < p->nparams; i++)
		free(p->params[i].name);
	free(p->params);
	free(p->func);
	memset(p, 0, sizeof(*p));
}

const char *vg_proto_param_name(const struct vg_proto *p, size_t i)
{
	return i < p->nparams ? p->params[i].name : NULL;
}

bool vg_proto_name_differs(const struct vg_proto *p, const char *binary,
			   size_t i, const char *spec_name, char *buf,
			   size_t len)
{
	const char *own = vg_proto_param_name(p, i);

	/* a method's object is `this` in DWARF, and whatever names it best
	 * in a spec (q, obj): that is no slip */
	if (!own || !spec_name || !strcmp(spec_name, "_") ||
	    !strcmp(own, spec_name) || !strcmp(own, "this"))
		return false;
	snprintf(buf, len, "%s: the spec calls parameter %zu '%s'; %s calls it '%s'",
		 p->func, i + 1, spec_name, binary, own);
	return true;
}

int vg_dwarf_param_name(struct vg_dwarf *dw, const char *func, size_t i,
			char *buf, size_t len, struct vg_err *e)
{
	struct vg_proto p;
	int ret = -1;

	if (vg_dwarf_proto(dw, func, &p, e))
		return -1;
	if (i >= p.nparams)
		vg_errf_code(e, VG_EXIT_USAGE,
			     "function '%s' in %s has %zu parameter%s, not %zu",
			     func, dw->path, p.nparams,
			     p.nparams == 1 ? "" : "s", i + 1);
	else if (!p.params[i].name)
		vg_errf_code(e, VG_EXIT_USAGE,
			     "parameter %zu of '%s' has no name in %s", i + 1,
			     func, dw->path);
	else {
		snprintf(buf, len, "%s", p.params[i].name);
		ret = 0;
	}
	vg_proto_free(&p);
	return ret;
}

/* --- globals -------------------------------------------------------------- */

int vg_dwarf_global(struct vg_dwarf *dw, const char *name,
		    struct vg_global *out, struct vg_err *e)
{
	const struct dw_ent *def = NULL, *any = NULL;
	GElf_Sym sym;
	size_t lo, hi;
	int tab;

	memset(out, 0, sizeof(*out));
	out->pie = vg_dwarf_is_pie(dw);
	dw_ent_range(dw, name, ENT_VAR, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct dw_ent *en = &dw->ents[i];

		if (!any || (any->flags & EF_DECL))
			any = en;
		if ((en->flags & (EF_PC | EF_TLS)) && !def)
			def = en;
	}
	tab = vg_elf_lookup(dw->f.elf, VG_TAB_SYMTAB | VG_TAB_DYNSYM, name,
			    VG_SYM_OBJECT, false, &sym);
	if ((tab && GELF_ST_TYPE(sym.st_info) == STT_TLS) ||
	    (!tab && def && (def->flags & EF_TLS)))
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "global '%s' in %s is thread-local: it has no single address (each thread has its own)",
				    name, dw->path);
	if (tab) {
		out->addr = sym.st_value;
		out->size = sym.st_size;
		out->source = tab == VG_TAB_SYMTAB ? VG_SRC_SYMTAB :
						     VG_SRC_DYNSYM;
	} else if (def) {
		out->addr = def->pc;
		out->source = VG_SRC_DWARF;
	} else if (any) {
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "global '%s' is only declared (extern) in %s: it is defined in a shared library",
				    name, dw->path);
	} else {
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "global '%s' not found in %s (looked in .symtab, .dynsym%s)",
				    name, dw->path,
				    dw->dbg	  ? " and DWARF" :
			    dw->problem ? "; its DWARF is unreadable" :
					  "; it has no DWARF");
	}
	if (def || any) {
		Dwarf_Die die;
		uint64_t t;

		if (dw_die(dw, (def ? def : any)->off, &die)) {
			if (dw_ref_follow(dw, die, DW_AT_type, &t) &&
			    !dw_describe(dw, t, &out->type, 0, e))
				out->has_type = true;
			dwarf_dealloc_die(die);
		}
		if (!out->size && out->has_type)
			out->size = out->type.size;
	}
	return 0;
}

/* external: DW_AT_external on the variable or on the declaration its
 * definition completes (DW_AT_specification) */
static bool var_external(struct vg_dwarf *dw, Dwarf_Die die)
{
	Dwarf_Die decl;
	bool ext = dw_flag(dw, die, DW_AT_external);

	if (!ext && dw_origin(dw, die, &decl)) {
		ext = dw_flag(dw, decl, DW_AT_external);
		dwarf_dealloc_die(decl);
	}
	return ext;
}

/* the name of the compilation unit DIE is in (its primary source) */
static const char *unit_name(struct vg_dwarf *dw, Dwarf_Die die,
			     Dwarf_Die *cu)
{
	Dwarf_Off off;
	Dwarf_Error err = NULL;

	*cu = NULL;
	if (dwarf_CU_dieoffset_given_die(die, &off, &err) != DW_DLV_OK) {
		if (err)
			dwarf_dealloc_error(dw->dbg, err);
		return NULL;
	}
	return dw_die(dw, off, cu) ? dw_name(dw, *cu) : NULL;
}

void vg_dwarf_each_var(struct vg_dwarf *dw, vg_dwarf_var_fn fn, void *ctx)
{
	dw_index(dw);
	for (size_t i = 0; i < dw->nents; i++) {
		const struct dw_ent *en = &dw->ents[i];
		struct vg_type t;
		struct vg_err e;
		Dwarf_Die die, cu;
		const char *file;
		uint64_t tid;

		if (en->kind != ENT_VAR || !(en->flags & EF_PC) ||
		    (en->flags & (EF_TLS | EF_DECL)) || !en->pc ||
		    !dw_die(dw, en->off, &die))
			continue;
		if (dw_ref_follow(dw, die, DW_AT_type, &tid) &&
		    !dw_describe(dw, tid, &t, 0, &e) && t.size) {
			file = unit_name(dw, die, &cu);
			fn(ctx, en->name, en->pc, t.size,
			   var_external(dw, die), file);
			if (cu)
				dwarf_dealloc_die(cu);
		}
		dwarf_dealloc_die(die);
	}
}
