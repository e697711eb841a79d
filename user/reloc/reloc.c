/* Relocating the instructions a 5-byte patch covers (reloc.h).
 *
 * The instructions are moved, not re-assembled: an instruction that does
 * not depend on where it runs is copied byte for byte; a RIP-relative
 * memory operand keeps its encoding and gets its disp32 rewritten in
 * place (the length does not change, so the new displacement is exact);
 * a relative jmp/jcc/call is re-encoded by Zydis's encoder at the new
 * address with a 32-bit displacement (jcc rel8 widens to jcc rel32).
 * Whatever else reads its own address is refused: loop, jrcxz, xbegin
 * (an 8-bit displacement or an abort address cannot be widened), and a
 * call to the next instruction (call; pop: the pushed address is read).
 *
 * A relocation is only sound if nothing jumps into the bytes the patch
 * overwrites: every direct branch of the function is checked (a linear
 * sweep over [fn, fn+fn_size)); indirect jumps cannot be, and are only
 * reported (out->indirect). Branches from outside the function (a .cold
 * part jumping back in) are not seen here.
 *
 * Before returning, the result is decoded again and every branch target
 * and RIP-relative address compared with the original's. */
#include "reloc/reloc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

struct rctx {
	ZydisDecoder dec;
	const uint8_t *bytes;
	uint32_t size;
	uint64_t fn;
	char *why;
	size_t whylen;
};

struct insn {
	ZydisDecodedInstruction i;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
};

static int fail(struct rctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->why && c->whylen) {
		va_start(ap, fmt);
		vsnprintf(c->why, c->whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool decode(const ZydisDecoder *d, const uint8_t *p, size_t n,
		   struct insn *in)
{
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(d, p, n, &in->i, in->op));
}

/* the instruction as text, for a message ("jrcxz 0x7f..") */
static void text(const struct insn *in, uint64_t ip, char *buf, size_t len)
{
	ZydisFormatter f;

	buf[0] = 0;
	if (!ZYAN_SUCCESS(ZydisFormatterInit(&f, ZYDIS_FORMATTER_STYLE_INTEL)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&f, &in->i, in->op,
			in->i.operand_count_visible, buf, len, ip, NULL)))
		snprintf(buf, len, "%s", ZydisMnemonicGetString(in->i.mnemonic));
}

/* the relative immediate operand (a branch target), or -1 */
static int rel_imm(const struct insn *in)
{
	for (int k = 0; k < in->i.operand_count; k++)
		if (in->op[k].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    in->op[k].imm.is_relative)
			return k;
	return -1;
}

/* the RIP-relative memory operand, or -1 */
static int rip_mem(const struct insn *in)
{
	for (int k = 0; k < in->i.operand_count; k++)
		if (in->op[k].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    in->op[k].mem.base == ZYDIS_REGISTER_RIP)
			return k;
	return -1;
}

static uint64_t absolute(const struct insn *in, int k, uint64_t ip)
{
	ZyanU64 a = 0;

	ZydisCalcAbsoluteAddress(&in->i, &in->op[k], ip, &a);
	return a;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* execution does not go on to the next instruction */
static bool terminates(const struct insn *in)
{
	switch (in->i.meta.category) {
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_UNCOND_BR:
		return true;
	default:
		break;
	}
	switch (in->i.mnemonic) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_INT3:
		return true;
	default:
		return false;
	}
}

/* why an instruction of the patch cannot run elsewhere, or NULL */
static const char *unmovable(const struct insn *in)
{
	int k = rel_imm(in);

	if (in->i.mnemonic == ZYDIS_MNEMONIC_INT3)
		return "a breakpoint is there (another tracer's probe?)";
	if (k >= 0) {
		switch (in->i.meta.category) {
		case ZYDIS_CATEGORY_COND_BR:
		case ZYDIS_CATEGORY_UNCOND_BR:
		case ZYDIS_CATEGORY_CALL:
			break;
		default:
			return "its relative target cannot be re-encoded";
		}
		/* loop, loopcc and jcxz are COND_BR in Zydis: rel8 only */
		switch (in->i.mnemonic) {
		case ZYDIS_MNEMONIC_LOOP:
		case ZYDIS_MNEMONIC_LOOPE:
		case ZYDIS_MNEMONIC_LOOPNE:
		case ZYDIS_MNEMONIC_JCXZ:
		case ZYDIS_MNEMONIC_JECXZ:
		case ZYDIS_MNEMONIC_JRCXZ:
			return "its 8-bit displacement cannot be widened";
		default:
			break;
		}
		if (in->op[k].size != 8 && in->op[k].size != 32)
			return "a 16-bit branch displacement";
	}
	if (in->i.mnemonic == ZYDIS_MNEMONIC_XBEGIN)
		return "xbegin's abort address cannot be re-encoded";
	k = rip_mem(in);
	if (k >= 0 && in->i.raw.disp.size != 32)
		return "its RIP-relative displacement is not 32-bit";
	if (in->i.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return "a far jump or call";
	return NULL;
}

/* decode the instructions the patch covers: out->patch_len */
static int cover(struct rctx *c, struct vg_reloc *out)
{
	uint32_t off = 0;
	struct insn in;
	char t[96];

	while (off < VG_RELOC_PATCH) {
		if (!decode(&c->dec, c->bytes + off, c->size - off, &in)) {
			if (off + 15 > c->size)
				return fail(c, "shorter than the 5-byte patch");
			return fail(c, "cannot decode the instruction at +0x%x", off);
		}
		const char *r = unmovable(&in);
		if (r) {
			text(&in, c->fn + off, t, sizeof(t));
			return fail(c, "an instruction of the patch (+0x%x: %s) cannot be moved: %s",
				    off, t, r);
		}
		off += in.i.length;
		if (off < VG_RELOC_PATCH && terminates(&in)) {
			text(&in, c->fn + off - in.i.length, t, sizeof(t));
			if (off >= c->size)
				return fail(c, "shorter than the 5-byte patch (ends with %s at +0x%x)",
					    t, off - in.i.length);
			return fail(c, "too short: %s at +0x%x ends the code before the 5-byte patch is covered",
				    t, off - in.i.length);
		}
	}
	if (off > sizeof(out->patch))
		return fail(c, "the patch would cover %u bytes (at most %zu)",
			    off, sizeof(out->patch));
	out->patch_len = off;
	return 0;
}

/* a relative jmp/jcc/call at `ip` to the same target, rel32 */
static int emit_branch(struct rctx *c, const struct insn *in, uint32_t off,
		       uint64_t ip, uint8_t *buf, size_t *len)
{
	ZydisEncoderRequest req;
	int k = rel_imm(in);
	uint64_t target = absolute(in, k, c->fn + off);
	char t[96];

	/* the longest form, jcc rel32, is 6 bytes */
	if (!fits32((int64_t)(target - (ip + 6))) ||
	    !fits32((int64_t)(target - (ip + 5))))
		return fail(c, "a branch at +0x%x (to 0x%llx) is out of reach of the trampoline",
			    off, (unsigned long long)target);
	if (!ZYAN_SUCCESS(ZydisEncoderDecodedInstructionToEncoderRequest(
			&in->i, in->op, in->i.operand_count_visible, &req)))
		goto noenc;
	req.branch_type = ZYDIS_BRANCH_TYPE_NEAR;
	req.branch_width = ZYDIS_BRANCH_WIDTH_32;
	req.operands[k].imm.u = target;
	if (ZYAN_SUCCESS(ZydisEncoderEncodeInstructionAbsolute(&req, buf, len, ip)))
		return 0;
noenc:
	text(in, c->fn + off, t, sizeof(t));
	return fail(c, "an instruction of the patch (+0x%x: %s) cannot be moved: Zydis cannot re-encode it",
		    off, t);
}

/* copy with the RIP-relative disp32 rewritten for `ip` */
static int emit_rip(struct rctx *c, const struct insn *in, uint32_t off,
		    uint64_t ip, uint8_t *buf, size_t *len)
{
	uint64_t a = absolute(in, rip_mem(in), c->fn + off);
	int64_t disp = (int64_t)(a - (ip + in->i.length));
	int32_t d32 = (int32_t)disp;

	if (!fits32(disp))
		return fail(c, "rip-relative operand at +0x%x (0x%llx) out of reach of the trampoline",
			    off, (unsigned long long)a);
	memcpy(buf, c->bytes + off, in->i.length);
	memcpy(buf + in->i.raw.disp.offset, &d32, 4);
	*len = in->i.length;
	return 0;
}

/* out->code: the covered instructions moved to `at`, then jmp back */
static int emit(struct rctx *c, uint64_t at, struct vg_reloc *out)
{
	uint32_t off = 0;
	struct insn in;

	out->len = 0;
	memset(out->at_of, 0, sizeof(out->at_of));
	while (off < out->patch_len) {
		uint8_t buf[ZYDIS_MAX_INSTRUCTION_LENGTH];
		size_t len = sizeof(buf);
		uint64_t ip = at + out->len;
		int k, rc = 0;

		decode(&c->dec, c->bytes + off, c->size - off, &in);
		if ((k = rel_imm(&in)) >= 0) {
			uint64_t t = absolute(&in, k, c->fn + off);

			if (t >= c->fn && t < c->fn + out->patch_len)
				return fail(c, "a jump at +0x%x lands inside the patch (+0x%llx)",
					    off, (unsigned long long)(t - c->fn));
			/* call next; pop reg: the callee reads its own
			 * return address, which would be the trampoline's */
			if (in.i.meta.category == ZYDIS_CATEGORY_CALL &&
			    t == c->fn + off + in.i.length)
				return fail(c, "an instruction of the patch (+0x%x: call to the next instruction) cannot be moved: it takes its own address",
					    off);
			rc = emit_branch(c, &in, off, ip, buf, &len);
		} else if (rip_mem(&in) >= 0) {
			rc = emit_rip(c, &in, off, ip, buf, &len);
		} else {
			memcpy(buf, c->bytes + off, in.i.length);
			len = in.i.length;
		}
		if (rc)
			return rc;
		if (out->len + len + 5 > VG_RELOC_MAX)
			return fail(c, "the relocated instructions take more than %d bytes",
				    VG_RELOC_MAX);
		if (off < sizeof(out->at_of))
			out->at_of[off] = (uint8_t)(out->len + 1);
		memcpy(out->code + out->len, buf, len);
		out->len += len;
		off += in.i.length;
	}
	/* jmp rel32 back to the first instruction the patch left */
	int64_t back = (int64_t)(c->fn + off - (at + out->len + 5));
	int32_t b32 = (int32_t)back;

	if (!fits32(back))
		return fail(c, "the function is out of reach of the trampoline (jmp back)");
	out->code[out->len] = 0xe9;
	memcpy(out->code + out->len + 1, &b32, 4);
	out->len += 5;
	return 0;
}

/* Does anything in the function branch into (fn, fn+patch_len)? A branch
 * to fn itself is a call of it again (tail recursion) and goes through
 * the patch as a call would. Undecodable bytes after a ret or jmp are
 * padding or data; anywhere else a branch could hide there. */
static int scan(struct rctx *c, struct vg_reloc *out)
{
	uint64_t lo = c->fn + 1, hi = c->fn + out->patch_len;
	bool after_term = false;
	uint32_t off = 0;
	struct insn in;

	while (off < c->size) {
		if (!decode(&c->dec, c->bytes + off, c->size - off, &in)) {
			if (!after_term)
				return fail(c, "cannot decode the function at +0x%x, so its jumps cannot be checked",
					    off);
			off++;
			continue;
		}
		int k = rel_imm(&in);
		uint64_t ip = c->fn + off, t;

		if (k >= 0 && (t = absolute(&in, k, ip)) >= lo && t < hi)
			return fail(c, "a jump at +0x%x lands inside the patch (+0x%llx)",
				    off, (unsigned long long)(t - c->fn));
		k = rip_mem(&in);
		if (k >= 0 && (t = absolute(&in, k, ip)) >= lo && t < hi)
			return fail(c, "an address taken at +0x%x points inside the patch (+0x%llx)",
				    off, (unsigned long long)(t - c->fn));
		/* a jmp through a register or a table; jmp [rip+X] is a tail
		 * call through the GOT */
		if (in.i.meta.category == ZYDIS_CATEGORY_UNCOND_BR &&
		    rel_imm(&in) < 0 && rip_mem(&in) < 0)
			out->indirect = 1;
		after_term = terminates(&in);
		off += in.i.length;
	}
	return 0;
}

/* Decode the relocated code again: the same instructions, the same
 * absolute targets and addresses, and a last jmp to fn + patch_len. */
static int verify(struct rctx *c, uint64_t at, const struct vg_reloc *out)
{
	uint32_t o = 0, n = 0;
	struct insn a, b;

	while (o < out->patch_len) {
		if (!decode(&c->dec, c->bytes + o, c->size - o, &a) ||
		    !decode(&c->dec, out->code + n, out->len - n, &b) ||
		    a.i.mnemonic != b.i.mnemonic)
			goto bad;
		int ka = rel_imm(&a), kb = rel_imm(&b);

		if ((ka < 0) != (kb < 0) ||
		    (ka >= 0 && absolute(&a, ka, c->fn + o) != absolute(&b, kb, at + n)))
			goto bad;
		ka = rip_mem(&a), kb = rip_mem(&b);
		if ((ka < 0) != (kb < 0) ||
		    (ka >= 0 && absolute(&a, ka, c->fn + o) != absolute(&b, kb, at + n)))
			goto bad;
		o += a.i.length;
		n += b.i.length;
	}
	if (!decode(&c->dec, out->code + n, out->len - n, &b) ||
	    b.i.mnemonic != ZYDIS_MNEMONIC_JMP || n + b.i.length != out->len ||
	    rel_imm(&b) < 0 ||
	    absolute(&b, rel_imm(&b), at + n) != c->fn + out->patch_len)
		goto bad;
	return 0;
bad:
	return fail(c, "the relocated copy of +0x%x does not decode as the original (a relocator bug)",
		    o);
}

int vg_reloc_build(const uint8_t *fn_bytes, uint32_t fn_size, uint64_t fn,
		   uint64_t at, uint64_t stub, struct vg_reloc *out,
		   char *why, size_t whylen)
{
	struct rctx c = { .bytes = fn_bytes, .size = fn_size, .fn = fn,
			  .why = why, .whylen = whylen };
	int64_t to_stub;
	int32_t s32;

	memset(out, 0, sizeof(*out));
	if (whylen)
		why[0] = 0;
	if (!fn_size)
		return fail(&c, "the function's size is unknown (no ELF symbol size), so its jumps cannot be checked");
	if (fn_size < VG_RELOC_PATCH)
		return fail(&c, "shorter than the 5-byte patch");
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&c.dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)))
		return fail(&c, "the x86-64 decoder does not start");
	if (cover(&c, out) || emit(&c, at, out) || scan(&c, out) ||
	    verify(&c, at, out))
		return -1;
	to_stub = (int64_t)(stub - (fn + VG_RELOC_PATCH));
	if (!fits32(to_stub))
		return fail(&c, "the stub is out of reach of the function's jmp rel32");
	s32 = (int32_t)to_stub;
	out->patch[0] = 0xe9;
	memcpy(out->patch + 1, &s32, 4);
	memset(out->patch + VG_RELOC_PATCH, 0xcc, out->patch_len - VG_RELOC_PATCH);
	memcpy(out->orig, fn_bytes, out->patch_len);
	return 0;
}

/* A linear sweep over the whole text: gcc's x86-64 code keeps no data in
 * .text, and after padding the decoder is back in step within a few
 * instructions. Only the instruction's own bytes are decoded (no
 * operands): the relative immediate is all that matters. */
static int by_target(const void *a, const void *b)
{
	const struct vg_reloc_jump *x = a, *y = b;

	return x->target < y->target ? -1 : x->target > y->target;
}

int vg_reloc_jumps(const uint8_t *text, uint64_t text_addr,
		   uint64_t text_len, struct vg_reloc_jump **out, size_t *n)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	struct vg_reloc_jump *j = NULL;
	size_t cap = 0;
	uint64_t off = 0;

	*out = NULL;
	*n = 0;
	/* lengths and raw immediates only: a third of a full decode's time,
	 * and a library's whole text is a million instructions */
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderEnableMode(&dec,
						 ZYDIS_DECODER_MODE_MINIMAL,
						 ZYAN_TRUE)))
		return -1;
	while (off < text_len) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL,
				text + off, text_len - off, &in))) {
			off++;
			continue;
		}
		uint64_t ip = text_addr + off, next = ip + in.length;

		for (int k = 0; k < 2; k++) {
			if (!in.raw.imm[k].is_relative)
				continue;
			if (*n == cap) {
				struct vg_reloc_jump *m;

				cap = cap ? 2 * cap : 4096;
				if (!(m = realloc(j, cap * sizeof(*j)))) {
					free(j);
					return -1;
				}
				j = m;
			}
			j[*n].from = ip;
			j[*n].target = next + (uint64_t)in.raw.imm[k].value.s;
			(*n)++;
		}
		off += in.length;
	}
	if (*n)	/* qsort(NULL, 0) is undefined */
		qsort(j, *n, sizeof(*j), by_target);
	*out = j;
	return 0;
}

int vg_reloc_check_jumps(const struct vg_reloc_jump *j, size_t n,
			 uint64_t fn, uint32_t patch_len, char *why,
			 size_t whylen)
{
	struct rctx c = { .why = why, .whylen = whylen };
	size_t lo = 0, hi = n;

	if (whylen)
		why[0] = 0;
	while (lo < hi) {	/* the first jump past fn */
		size_t mid = (lo + hi) / 2;

		if (j[mid].target <= fn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && j[lo].target < fn + patch_len; lo++) {
		uint64_t ip = j[lo].from, t = j[lo].target;

		if (ip >= fn && ip < fn + patch_len)
			continue;	/* the patch's own: relocated */
		if (ip < fn)
			return fail(&c, "a jump at fn-0x%llx, before the function, lands inside the patch (+0x%llx)",
				    (unsigned long long)(fn - ip),
				    (unsigned long long)(t - fn));
		return fail(&c, "a jump at +0x%llx lands inside the patch (+0x%llx)",
			    (unsigned long long)(ip - fn),
			    (unsigned long long)(t - fn));
	}
	return 0;
}

int vg_reloc_check_text(const uint8_t *text, uint64_t text_addr,
			uint64_t text_len, uint64_t fn, uint32_t patch_len,
			char *why, size_t whylen)
{
	struct vg_reloc_jump *j;
	size_t n;
	int rc;

	if (vg_reloc_jumps(text, text_addr, text_len, &j, &n)) {
		snprintf(why, whylen, "the x86-64 decoder does not start, or no memory");
		return -1;
	}
	rc = vg_reloc_check_jumps(j, n, fn, patch_len, why, whylen);
	free(j);
	return rc;
}
