/* Each patched function's stubs and relocated first instructions, built
 * in vigil for its file's area in the target (fast_run.h), and the checks
 * that a patch there is safe: no jump into the bytes it replaces. */
#include "fast_run.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fast/agent_blob.h"
#include "fast/inject.h"
#include "fast/tramp.h"

/* Are the function's n bytes in the target those of its file? Then the
 * plan's sweep of the file for jumps into the patch (plan_fast.c) holds
 * for the mapping, which is that file: no second sweep here, which cost
 * ~40 ms a library with the target held. */
static bool as_in_file(const struct hook *k, const uint8_t *code, uint32_t n)
{
	uint8_t *buf = malloc(n);
	int fd = open(k->path, O_RDONLY | O_CLOEXEC);
	bool same = buf && fd >= 0 &&
		    pread(fd, buf, n, (off_t)k->off) == (ssize_t)n &&
		    !memcmp(buf, code, n);

	if (fd >= 0)
		close(fd);
	free(buf);
	return same;
}

/* Code outside the function may jump into its patch too (glibc's
 * mempcpy ends with a jmp to memmove+3): for code someone rewrote in
 * memory, the whole mapping it is in, read once per file, swept for such
 * jumps (reloc.h). why "" with e set when the mapping could not be
 * read. */
static int sweep(struct area *ar, const struct hook *k, struct vg_inject *in,
		 char *why, size_t len, struct vg_err *e)
{
	*why = 0;
	if (!ar->jumps || ar->text_lo != k->text_lo) {
		uint8_t *text = malloc(k->text_hi - k->text_lo);

		free(ar->jumps);
		ar->jumps = NULL;
		ar->text_lo = k->text_lo;
		ar->text_hi = k->text_hi;
		if (!text)
			return vg_errf(e, "out of memory");
		if (vg_inject_read(in, k->text_lo, text,
				   k->text_hi - k->text_lo, e)) {
			free(text);
			return -1;
		}
		if (vg_reloc_jumps(text, ar->text_lo, ar->text_hi - ar->text_lo,
				   &ar->jumps, &ar->njumps)) {
			free(text);
			return vg_errf(e, "out of memory");
		}
		free(text);
	}
	return vg_reloc_check_jumps(ar->jumps, ar->njumps, k->fn,
				    k->r.patch_len, why, len);
}

static const struct vg_agent_head *head(void)
{
	return (const struct vg_agent_head *)vg_agent_blob;
}

/* Each function's stubs and relocated instructions, in its area */
int vg_fast_build_hooks(struct vg_fast_run *f, struct vg_inject *in,
			struct vg_err *e)
{
	uint8_t *code = malloc(FN_READ_MAX);
	int rc = -1;

	if (!code)
		return vg_errf(e, "out of memory");
	for (int i = 0; i < f->nhooks; i++) {
		struct hook *k = &f->hooks[i];
		struct area *ar = &f->areas[k->area];
		uint64_t at = ar->addr + ar->used, entry = at,
			 ret = at + STUB_MAX, reloc = at + 2 * STUB_MAX;
		uint32_t n = k->size > FN_READ_MAX ? FN_READ_MAX
						   : (uint32_t)k->size;
		char why[256];
		int len;

		if (n < 16)
			n = 16;
		if (vg_inject_read(in, k->fn, code, n, e))
			goto out;
		if (vg_reloc_build(code, (uint32_t)k->size, k->fn, reloc, entry,
				   &k->r, why, sizeof(why)) ||
		    (!as_in_file(k, code, n) &&
		     sweep(ar, k, in, why, sizeof(why), e))) {
			if (!why[0])
				goto out;	/* e says why */
			vg_errf(e, "%s+0x%" PRIx64 " cannot be patched: %s (the plan gave it no uprobe; run with --no-fast, or leave it out of --fast)",
				k->path, k->off, why);
			goto out;
		}
		memcpy(ar->buf + ar->used + 2 * STUB_MAX, k->r.code, k->r.len);
		len = vg_tramp_entry_stub(ar->buf + ar->used, STUB_MAX, entry,
					  (uint32_t)i,
					  f->agent + head()->entry_off, reloc);
		if (len < 0) {
			vg_errf(e, "building the entry stub");
			goto out;
		}
		if (k->h.nret || 1) {	/* LEAVE-only functions return too */
			len = vg_tramp_return_stub(ar->buf + ar->used + STUB_MAX,
						   STUB_MAX, ret, (uint32_t)i,
						   f->agent + head()->return_off);
			if (len < 0) {
				vg_errf(e, "building the return stub");
				goto out;
			}
			k->h.ret_stub = ret;
		}
		k->h.fn = k->fn;
		k->entry = entry;
		k->h.reloc = reloc;
		k->h.patch_len = k->r.patch_len;
		/* for the agent, to write back if vigil dies (inproc/takeback.c) */
		memcpy(k->h.orig, k->r.orig, sizeof(k->h.orig));
		memcpy(k->h.patch, k->r.patch, sizeof(k->h.patch));
		ar->used += HOOK_BYTES;
		f->sh->hooks[i] = k->h;
	}
	f->sh->nhooks = (uint32_t)f->nhooks;
	rc = 0;
out:
	free(code);
	return rc;
}

