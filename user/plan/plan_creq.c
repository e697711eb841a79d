/* The sites of valgrind's client requests (plan.h, vg_plan_creq_sites):
 * each request's `xchg %rbx,%rbx` in the program and the libraries the
 * loader maps (and --lib's), found by user/sym/creq_scan.c, runs vg_creq
 * (bpf/vigil/creq.bpf.c) with the client-request event as cookie. The
 * probe goes on the xchg itself, not moved by placement: %rax points to
 * the request there, and only there is the request sure to be one. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "sym/creq_scan.h"
#include "sym/libs.h"

static int add_creq_site(struct vg_plan *p, int event, const char *path,
			 uint64_t off, struct vg_err *e)
{
	struct vg_plan_site *s = vg_plan_new_site(p, event, VG_PROG_CREQ, e);

	if (!s)
		return -1;
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->func = off;
	s->offset = off;
	snprintf(s->insn, sizeof(s->insn), "xchg %%rbx,%%rbx");
	return 0;
}

bool vg_plan_creq_any(const char *binary, const char *const *dlopened,
		      size_t ndlopened)
{
	struct vg_libs libs;
	struct vg_err e;
	bool any = false;

	if (vg_libs_load_with(binary, dlopened, ndlopened, &libs, &e))
		return true;
	for (size_t i = 0; i < libs.n && !any; i++) {
		uint64_t *off = NULL;
		size_t n = 0;

		if (!libs.v[i].path)
			continue;
		any = vg_creq_scan_file(libs.v[i].path, &off, &n, &e) ? !i
									: n > 0;
		free(off);
	}
	vg_libs_free(&libs);
	return any;
}

int vg_plan_creq_sites(struct vg_plan *p, int event, struct vg_libs *libs,
		       struct vg_err *e)
{
	for (size_t i = 0; i < libs->n; i++) {
		const char *path = libs->v[i].path;
		uint64_t *off = NULL;
		size_t n = 0;
		int rc = 0;

		if (!path)
			continue;
		/* the program must be readable; a library that is not an
		 * ELF file vigil can read has no requests it can probe */
		if (vg_creq_scan_file(path, &off, &n, e)) {
			if (!i)
				return -1;
			memset(e, 0, sizeof(*e));
			continue;
		}
		for (size_t k = 0; k < n && !rc; k++)
			rc = add_creq_site(p, event, path, off[k], e);
		free(off);
		if (rc)
			return -1;
	}
	return 0;
}
