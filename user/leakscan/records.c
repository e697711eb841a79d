#include "records.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

static int by_key(const void *a, const void *b)
{
	const struct vg_leak_block *const *x = a, *const *y = b;

	if ((*x)->kind != (*y)->kind)
		return (int)(*x)->kind - (int)(*y)->kind;
	if ((*x)->tag != (*y)->tag)
		return (*x)->tag < (*y)->tag ? -1 : 1;
	return (*x)->addr < (*y)->addr ? -1 : (*x)->addr > (*y)->addr;
}

/* memcheck's order: total bytes, then kind, then blocks; the stack and
 * address keep it stable across runs */
static int by_size(const void *a, const void *b)
{
	const struct vg_leak_record *x = a, *y = b;
	uint64_t tx = x->bytes + x->indirect, ty = y->bytes + y->indirect;

	if ((x->supp >= 0) != (y->supp >= 0))
		return x->supp >= 0 ? 1 : -1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->kind != y->kind)	/* reachable first, definite last */
		return (int)y->kind - (int)x->kind;
	if (x->blocks != y->blocks)
		return x->blocks < y->blocks ? -1 : 1;
	return x->first_addr < y->first_addr ? -1 : x->first_addr > y->first_addr;
}

int vg_leak_records(const struct vg_leak_block *blocks, size_t n,
		    const struct vg_leak_stack *stacks, int nstacks,
		    const struct vg_leak_supp *supp,
		    struct vg_leak_report *out)
{
	const struct vg_leak_block **v = calloc(n + 1, sizeof(*v));
	int nsupp = vg_leak_supp_count(supp);

	memset(out, 0, sizeof(*out));
	out->rec = calloc(n + 1, sizeof(*out->rec));
	out->supp_used = calloc((size_t)nsupp + 1, sizeof(int));
	if (!v || !out->rec || !out->supp_used) {
		free(v);
		vg_leak_report_free(out);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = &blocks[i];
	qsort(v, n, sizeof(*v), by_key);
	for (size_t i = 0; i < n; i++) {
		struct vg_leak_record *r;

		if (!i || v[i]->kind != v[i - 1]->kind ||
		    v[i]->tag != v[i - 1]->tag) {
			r = &out->rec[out->nrec++];
			r->kind = v[i]->kind;
			r->stack = v[i]->tag < nstacks ? v[i]->tag : -1;
			r->first_addr = v[i]->addr;
			r->supp = -1;
		}
		r = &out->rec[out->nrec - 1];
		r->blocks++;
		r->bytes += v[i]->size;
		r->indirect += v[i]->indirect;
	}
	free(v);
	for (int i = 0; i < out->nrec; i++) {
		struct vg_leak_record *r = &out->rec[i];
		const struct vg_leak_stack *st = r->stack >= 0 ? &stacks[r->stack]
							       : NULL;

		if (st)
			r->supp = vg_leak_supp_match(supp, st->frames, st->n,
						     r->kind);
		if (r->supp >= 0) {
			out->supp_used[r->supp]++;
			out->supp_blocks += r->blocks;
			out->supp_bytes += r->bytes;
			continue;
		}
		out->nshown++;
		out->blocks[r->kind] += r->blocks;
		out->bytes[r->kind] += r->bytes;
	}
	vg_leak_records_sort(out);
	return 0;
}

void vg_leak_records_sort(struct vg_leak_report *r)
{
	qsort(r->rec, (size_t)r->nrec, sizeof(*r->rec), by_size);
}

/* memcheck's rules (mc_leakcheck.c, get_printing_rules): a plain check
 * shows the records with blocks, ADDED those that grew in bytes, indirect
 * bytes or blocks, CHANGED those that changed in any, NEW those that had
 * no block */
bool vg_leak_record_shown(const struct vg_leak_report *r,
			  const struct vg_leak_record *x)
{
	if (r->summary_only)
		return false;
	switch (r->delta) {
	case VG_LEAK_DELTA_INCREASED:
		return x->bytes > x->old_bytes ||
		       x->indirect > x->old_indirect ||
		       x->blocks > x->old_blocks;
	case VG_LEAK_DELTA_CHANGED:
		return x->bytes != x->old_bytes ||
		       x->indirect != x->old_indirect ||
		       x->blocks != x->old_blocks;
	case VG_LEAK_DELTA_NEW:
		return x->blocks > 0 && x->old_blocks == 0;
	default:
		return x->blocks > 0;
	}
}

/* " (+10)", " (-1,024)" beside a count in a delta check; "" otherwise */
static const char *delta_text(const struct vg_leak_report *r, uint64_t now,
			      uint64_t old, char *buf, size_t len)
{
	char n[32];

	if (r->delta == VG_LEAK_DELTA_NONE)
		buf[0] = 0;
	else
		snprintf(buf, len, " (%c%s)", now >= old ? '+' : '-',
			 vg_leak_commas(now >= old ? now - old : old - now, n,
					sizeof(n)));
	return buf;
}

void vg_leak_report_free(struct vg_leak_report *r)
{
	free(r->rec);
	free(r->supp_used);
	memset(r, 0, sizeof(*r));
}

const char *vg_leak_commas(uint64_t v, char *buf, size_t len)
{
	char raw[32];
	int n = snprintf(raw, sizeof(raw), "%" PRIu64, v);
	size_t o = 0;

	for (int i = 0; i < n && o + 1 < len; i++) {
		if (i && (n - i) % 3 == 0 && o + 2 < len)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = 0;
	return buf;
}

static void stack_text(const struct vg_leak_stack *st, FILE *out)
{
	if (!st || !st->n) {
		fputs("   (no allocation stack: run with --stacks, or the evidence ring dropped it)\n",
		      out);
		return;
	}
	for (int i = 0; i < st->n; i++)
		fprintf(out, "   %s %s\n", i ? "by" : "at", st->text[i]);
}

void vg_leak_report_text(const struct vg_leak_report *r,
			 const struct vg_leak_stack *stacks,
			 const struct vg_leak_supp *supp, unsigned show,
			 FILE *out)
{
	char a[32], b[32], c[32], d[32];
	static const enum vg_leak_kind order[] = {
		VG_LEAK_DEFINITE, VG_LEAK_INDIRECT, VG_LEAK_POSSIBLE,
		VG_LEAK_REACHABLE
	};
	static const char *const label[] = {
		"   definitely lost", "   indirectly lost",
		"     possibly lost", "   still reachable"
	};
	char da[40], db[40], dc[40], dd[40];
	uint64_t hidden = 0;

	for (int i = 0; i < r->nshown; i++) {
		const struct vg_leak_record *x = &r->rec[i];

		if (!vg_leak_record_shown(r, x))
			continue;
		if (!(show >> x->kind & 1)) {
			hidden++;
			continue;
		}
		delta_text(r, x->bytes + x->indirect,
			   x->old_bytes + x->old_indirect, da, sizeof(da));
		delta_text(r, x->blocks, x->old_blocks, dd, sizeof(dd));
		if (x->indirect || x->old_indirect)
			fprintf(out, "%s%s (%s%s direct, %s%s indirect) bytes in %s%s blocks are %s in loss record %d of %d\n",
				vg_leak_commas(x->bytes + x->indirect, a, sizeof(a)), da,
				vg_leak_commas(x->bytes, b, sizeof(b)),
				delta_text(r, x->bytes, x->old_bytes, db, sizeof(db)),
				vg_leak_commas(x->indirect, c, sizeof(c)),
				delta_text(r, x->indirect, x->old_indirect, dc,
					   sizeof(dc)),
				vg_leak_commas(x->blocks, d, sizeof(d)), dd,
				vg_leak_kind_text(x->kind), i + 1, r->nshown);
		else
			fprintf(out, "%s%s bytes in %s%s blocks are %s in loss record %d of %d\n",
				vg_leak_commas(x->bytes, a, sizeof(a)), da,
				vg_leak_commas(x->blocks, b, sizeof(b)), dd,
				vg_leak_kind_text(x->kind), i + 1, r->nshown);
		stack_text(x->stack >= 0 ? &stacks[x->stack] : x->gone_stack,
			   out);
		fputc('\n', out);
	}
	fputs("LEAK SUMMARY:\n", out);
	for (int k = 0; k < VG_LEAK_NKINDS; k++)
		fprintf(out, "%s: %s%s bytes in %s%s blocks\n", label[order[k]],
			vg_leak_commas(r->bytes[order[k]], a, sizeof(a)),
			delta_text(r, r->bytes[order[k]], r->old_bytes[order[k]],
				   da, sizeof(da)),
			vg_leak_commas(r->blocks[order[k]], b, sizeof(b)),
			delta_text(r, r->blocks[order[k]],
				   r->old_blocks[order[k]], db, sizeof(db)));
	fprintf(out, "        suppressed: %s bytes in %s blocks\n",
		vg_leak_commas(r->supp_bytes, a, sizeof(a)),
		vg_leak_commas(r->supp_blocks, b, sizeof(b)));
	if (hidden)
		fprintf(out, "Reachable blocks (those to which a pointer was found) are not shown.\nTo see them, rerun with: --show-leak-kinds=all\n");
	for (int i = 0; i < vg_leak_supp_count(supp); i++)
		if (r->supp_used[i])
			fprintf(out, "used suppression: %4d %s\n",
				r->supp_used[i], vg_leak_supp_name(supp, i));
}

static void stack_json(const struct vg_leak_stack *st, FILE *out)
{
	fputc('[', out);
	for (int i = 0; st && i < st->n; i++) {
		/* a gone record's stack (delta.h) keeps the text alone */
		static const struct vg_leak_frame none;
		const struct vg_leak_frame *f = st->frames ? &st->frames[i]
							   : &none;

		fprintf(out, "%s{\"text\":", i ? "," : "");
		vg_json_str(out, st->text[i]);
		fputs(",\"function\":", out);
		vg_json_str(out, f->func ? f->func : "");
		fputs(",\"file\":", out);
		vg_json_str(out, f->file ? f->file : "");
		fprintf(out, ",\"line\":%d,\"object\":", f->line);
		vg_json_str(out, f->obj ? f->obj : "");
		fputc('}', out);
	}
	fputc(']', out);
}

void vg_leak_report_json(const struct vg_leak_report *r,
			 const struct vg_leak_stack *stacks,
			 const struct vg_leak_supp *supp, FILE *out)
{
	bool first = true;

	fputs("\"records\":[", out);
	for (int i = 0; i < r->nshown; i++) {
		const struct vg_leak_record *x = &r->rec[i];

		if (!vg_leak_record_shown(r, x))
			continue;
		fprintf(out, "%s{\"record\":%d,\"of\":%d,\"kind\":\"%s\",\"blocks\":%" PRIu64
			",\"bytes\":%" PRIu64 ",\"indirect_bytes\":%" PRIu64
			",\"first_address\":\"0x%" PRIx64 "\",",
			first ? "" : ",", i + 1, r->nshown,
			vg_leak_kind_name(x->kind), x->blocks, x->bytes,
			x->indirect, x->first_addr);
		if (r->delta)
			fprintf(out, "\"previous\":{\"blocks\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"indirect_bytes\":%" PRIu64 "},",
				x->old_blocks, x->old_bytes, x->old_indirect);
		fputs("\"stack\":", out);
		stack_json(x->stack >= 0 ? &stacks[x->stack] : x->gone_stack,
			   out);
		fputc('}', out);
		first = false;
	}
	fputs("],\"summary\":{", out);
	for (int k = 0; k < VG_LEAK_NKINDS; k++)
		fprintf(out, "\"%s\":{\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64 "},",
			vg_leak_kind_name(k), r->bytes[k], r->blocks[k]);
	fprintf(out, "\"suppressed\":{\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64 "}}",
		r->supp_bytes, r->supp_blocks);
	fputs(",\"suppressions\":[", out);
	first = true;
	for (int i = 0; i < vg_leak_supp_count(supp); i++) {
		if (!r->supp_used[i])
			continue;
		fprintf(out, "%s{\"name\":", first ? "" : ",");
		vg_json_str(out, vg_leak_supp_name(supp, i));
		fprintf(out, ",\"records\":%d}", r->supp_used[i]);
		first = false;
	}
	fputc(']', out);
}
