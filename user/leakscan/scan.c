/* Marking as memcheck's leak checker does (valgrind's mc_leakcheck.c
 * describes the algorithm; this is an implementation of it, not a copy):
 *
 * 1. From the roots, a pointer to a block's start makes it reachable, an
 *    interior pointer possibly reachable; a block whose state rose is
 *    (re)scanned, its own pointers counting as definite only when it is
 *    reachable itself.
 * 2. Every block still unreached, in address order, leads a clique: the
 *    unreached blocks it reaches become indirectly lost, their bytes (and
 *    those of a former leader it swallows) added to the leader's. */
#include "scan.h"

#include <stdlib.h>
#include <string.h>

enum mark { UNREACHED, POSSIBLE, REACHABLE, INDIRECT };

struct vg_leak_scan {
	struct vg_leak_block *b;
	size_t n;
	uint64_t lo, hi;	/* [lo, hi): every block's bytes */
	unsigned char *mark;
	size_t *stack, depth, cap;
	int oom;
	int glibc;		/* vg_leak_scan_glibc_chunks */
	FILE *trace;
};

static const char *const names[] = { "definite", "indirect", "possible",
				     "reachable" };
static const char *const texts[] = { "definitely lost", "indirectly lost",
				     "possibly lost", "still reachable" };

const char *vg_leak_kind_name(enum vg_leak_kind k)
{
	return k < VG_LEAK_NKINDS ? names[k] : "?";
}

const char *vg_leak_kind_text(enum vg_leak_kind k)
{
	return k < VG_LEAK_NKINDS ? texts[k] : "?";
}

static int by_addr(const void *a, const void *b)
{
	const struct vg_leak_block *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct vg_leak_scan *vg_leak_scan_new(struct vg_leak_block *blocks, size_t n)
{
	struct vg_leak_scan *s = calloc(1, sizeof(*s));
	size_t k = 0;

	if (!s)
		return NULL;
	if (n > 1)	/* (blocks is NULL when no block is live) */
		qsort(blocks, n, sizeof(*blocks), by_addr);
	/* an overlap means a slice the monitor kept past a free it did not
	 * see: keep the lower block, so that lookups stay a search */
	for (size_t i = 0; i < n; i++) {
		if (k && blocks[i].addr < blocks[k - 1].addr +
					  blocks[k - 1].size)
			continue;
		blocks[k++] = blocks[i];
	}
	s->b = blocks;
	s->n = k;
	s->lo = k ? blocks[0].addr : 0;
	for (size_t i = 0; i < k; i++) {
		uint64_t end = blocks[i].addr + (blocks[i].size ? blocks[i].size : 1);

		if (end > s->hi)
			s->hi = end;
		blocks[i].kind = VG_LEAK_DEFINITE;
		blocks[i].indirect = 0;
	}
	s->mark = calloc(k + 1, 1);
	if (!s->mark) {
		free(s);
		return NULL;
	}
	return s;
}

void vg_leak_scan_free(struct vg_leak_scan *s)
{
	if (!s)
		return;
	free(s->mark);
	free(s->stack);
	free(s);
}

size_t vg_leak_scan_count(const struct vg_leak_scan *s)
{
	return s->n;
}

long vg_leak_scan_find(const struct vg_leak_scan *s, uint64_t v)
{
	size_t lo = 0, hi = s->n;

	if (v < s->lo || v >= s->hi)
		return -1;
	while (hi - lo > 1) {		/* the last block with addr <= v */
		size_t mid = lo + (hi - lo) / 2;

		if (s->b[mid].addr <= v)
			lo = mid;
		else
			hi = mid;
	}
	if (s->b[lo].addr > v)
		return -1;
	if (v < s->b[lo].addr + s->b[lo].size ||
	    (s->b[lo].size == 0 && v == s->b[lo].addr))
		return (long)lo;
	return -1;
}

static void push(struct vg_leak_scan *s, size_t i)
{
	if (s->depth == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		size_t *st = realloc(s->stack, cap * sizeof(*st));

		if (!st) {	/* a block left unscanned errs towards lost */
			s->oom = 1;
			return;
		}
		s->stack = st;
		s->cap = cap;
	}
	s->stack[s->depth++] = i;
}

/* the header of glibc's next chunk: the block's chunk (8 bytes of size
 * before it, rounded up to 16, at least 32) ends there, 16 before the
 * next block */
static int next_chunk(const struct vg_leak_block *b, uint64_t v)
{
	uint64_t chunk = (b->size + 8 + 15) & ~15ull;

	if (chunk < 32)
		chunk = 32;
	return v == b->addr - 16 + chunk;
}

/* phase 1: value seen in a root (definite) or in a block (definite when
 * that block is reachable) */
static void reach(struct vg_leak_scan *s, uint64_t v, int definite)
{
	long i = vg_leak_scan_find(s, v);
	int via;

	if (i < 0 || s->mark[i] == REACHABLE ||
	    (s->glibc && next_chunk(&s->b[i], v)))
		return;
	via = v == s->b[i].addr ? REACHABLE : POSSIBLE;
	if (via == REACHABLE && definite) {
		s->mark[i] = REACHABLE;
		push(s, (size_t)i);
	} else if (s->mark[i] == UNREACHED) {
		s->mark[i] = POSSIBLE;
		push(s, (size_t)i);
	}
}

/* phase 2: value seen in a block of the clique led by `leader` */
static void swallow(struct vg_leak_scan *s, uint64_t v, size_t leader)
{
	long i = vg_leak_scan_find(s, v);

	/* reachable, possible, or already in a clique: not this one's */
	if (i < 0 || (size_t)i == leader || s->mark[i] != UNREACHED)
		return;
	s->mark[i] = INDIRECT;
	s->b[leader].indirect += s->b[i].size + s->b[i].indirect;
	s->b[i].indirect = 0;		/* a former leader's, moved up */
	push(s, (size_t)i);
}

static void words(struct vg_leak_scan *s, uint64_t addr, const void *data,
		  size_t len, int definite, long leader)
{
	const unsigned char *p = data;
	size_t skip = (size_t)((8 - (addr & 7)) & 7);

	if (!data || len < skip)
		return;
	for (size_t o = skip; o + 8 <= len; o += 8) {
		uint64_t v;

		memcpy(&v, p + o, 8);
		if (v < s->lo || v >= s->hi)
			continue;
		if (leader >= 0)
			swallow(s, v, (size_t)leader);
		else
			reach(s, v, definite);
	}
}

static void drain(struct vg_leak_scan *s, long leader)
{
	while (s->depth) {
		size_t i = s->stack[--s->depth];
		const struct vg_leak_block *b = &s->b[i];

		words(s, b->addr, b->data, b->data ? b->size : 0,
		      s->mark[i] == REACHABLE, leader);
	}
}

void vg_leak_scan_glibc_chunks(struct vg_leak_scan *s, int on)
{
	s->glibc = on;
}

void vg_leak_scan_trace(struct vg_leak_scan *s, FILE *f)
{
	s->trace = f;
}

static void trace_root(struct vg_leak_scan *s, uint64_t addr,
		       const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t skip = (size_t)((8 - (addr & 7)) & 7);

	for (size_t o = skip; data && o + 8 <= len; o += 8) {
		uint64_t v;
		long i;

		memcpy(&v, p + o, 8);
		if ((i = vg_leak_scan_find(s, v)) >= 0)
			fprintf(s->trace, "vigil: leak scan: root 0x%llx holds 0x%llx (block 0x%llx)\n",
				(unsigned long long)(addr + o),
				(unsigned long long)v,
				(unsigned long long)s->b[i].addr);
	}
}

void vg_leak_scan_root(struct vg_leak_scan *s, uint64_t addr,
		       const void *data, size_t len)
{
	if (s->trace)
		trace_root(s, addr, data, len);
	words(s, addr, data, len, 1, -1);
	drain(s, -1);
}

void vg_leak_scan_root_word(struct vg_leak_scan *s, uint64_t value)
{
	if (s->trace && vg_leak_scan_find(s, value) >= 0)
		fprintf(s->trace, "vigil: leak scan: a register holds 0x%llx\n",
			(unsigned long long)value);
	reach(s, value, 1);
	drain(s, -1);
}

void vg_leak_scan_finish(struct vg_leak_scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->mark[i] != UNREACHED)
			continue;
		push(s, i);
		drain(s, (long)i);
	}
	for (size_t i = 0; i < s->n; i++) {
		static const enum vg_leak_kind k[] = {
			[UNREACHED] = VG_LEAK_DEFINITE,
			[POSSIBLE] = VG_LEAK_POSSIBLE,
			[REACHABLE] = VG_LEAK_REACHABLE,
			[INDIRECT] = VG_LEAK_INDIRECT,
		};

		s->b[i].kind = k[s->mark[i]];
		if (s->b[i].kind != VG_LEAK_DEFINITE)
			s->b[i].indirect = 0;
	}
}
