/* The memory predicates of the language (valid(p, n), block_length(p),
 * ...): their names and arguments, for the parser, the text of a guard
 * and lint. What each means is include/vigil_code.h's enum vg_mem_pred
 * and docs/LANGUAGE.md's; the object map of a run answers them. */
#include "spec.h"

#include <string.h>

static const struct {
	const char *name;
	int nargs;
} preds[VG_MEM__COUNT] = {
	[VG_MEM_VALID] = { "valid", 2 },
	[VG_MEM_VALID_READ] = { "valid_read", 2 },
	[VG_MEM_BLOCK_LENGTH] = { "block_length", 1 },
	[VG_MEM_BLOCK_BASE] = { "block_base", 1 },
	[VG_MEM_OFFSET] = { "offset", 1 },
	[VG_MEM_FREEABLE] = { "freeable", 1 },
	[VG_MEM_FREED] = { "freed", 1 },
	[VG_MEM_STRLEN_AT] = { "strlen_at", 2 },
};

int vg_mem_pred_find(const char *name, int *nargs)
{
	for (int i = 0; i < VG_MEM__COUNT; i++)
		if (!strcmp(preds[i].name, name)) {
			if (nargs)
				*nargs = preds[i].nargs;
			return i;
		}
	return -1;
}

const char *vg_mem_pred_name(int pred)
{
	return pred >= 0 && pred < VG_MEM__COUNT ? preds[pred].name : "?";
}

bool vg_mem_pred_is_bool(int pred)
{
	return pred == VG_MEM_VALID || pred == VG_MEM_VALID_READ ||
	       pred == VG_MEM_FREEABLE || pred == VG_MEM_FREED;
}

int vg_code_mem_pred(const struct vg_insn *code, struct vg_code_ref r)
{
	for (uint32_t i = r.off; i < r.off + r.len; i++)
		if (code[i].op == VG_OP_MEM)
			return (int)code[i].imm;
	return -1;
}

bool vg_code_reads_memory(const struct vg_insn *code, struct vg_code_ref r)
{
	for (uint32_t i = r.off; i < r.off + r.len; i++)
		if (code[i].op == VG_OP_MEM && code[i].imm == VG_MEM_STRLEN_AT)
			return true;
	return false;
}

int vg_property_mem_pred(const struct vg_property *p, int *line)
{
	for (int i = 0; i < p->ntrans; i++) {
		const struct vg_transition *t = &p->trans[i];
		int k = vg_code_mem_pred(p->code, t->guard);

		if (k < 0)
			k = vg_code_mem_pred(p->code, t->update);
		if (k >= 0) {
			if (line)
				*line = t->loc.line;
			return k;
		}
	}
	for (int i = 0; i < p->nstates; i++) {
		const struct vg_state *s = &p->states[i];
		int k = vg_code_mem_pred(p->code, s->deadline);

		if (k < 0)
			k = vg_code_mem_pred(p->code, s->timeout_update);
		if (k >= 0) {
			if (line)
				*line = s->timeout_loc.line;
			return k;
		}
	}
	return -1;
}
