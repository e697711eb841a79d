/* Where the program tells a memory checker not to report
 * (user/watchset/errquiet.h). Two sets of byte ranges per process, kept
 * as sorted arrays of disjoint [lo, hi) (a program names few: memcheck's
 * own tests a handful, and every free takes its block out of the second),
 * and a level per thread. The semantics are memcheck 3.19's:
 * m_scheduler/scheduler.c (VG_USERREQ__CHANGE_ERR_DISABLEMENT: +1, or -1
 * down to 0), mc_main.c (modify_ignore_ranges: a range of length 0 is
 * nothing; MAKE_MEM_DEFINED and _UNDEFINED make bytes addressable,
 * _NOACCESS and free unaddressable), mc_errors.c (record_address_error:
 * an access starting in an ignored range is not an error). */
#include "errquiet.h"

#include <stdlib.h>
#include <string.h>

#include "vigil_creq.h"

struct span {
	uint64_t space;
	uint64_t lo, hi;
};

struct spans {
	struct span *v;
	size_t n, cap;
};

struct level {
	uint32_t tid;
	uint32_t level;
};

struct vg_errquiet {
	struct spans ignored;	/* DISABLE_ADDR_ERROR_REPORTING_IN_RANGE */
	struct spans addressable;	/* MAKE_MEM_DEFINED on freed memory */
	struct level *lv;	/* threads whose level is above 0 */
	size_t nlv, caplv;
	uint64_t silenced;
};

struct vg_errquiet *vg_errquiet_new(void)
{
	return calloc(1, sizeof(struct vg_errquiet));
}

void vg_errquiet_free(struct vg_errquiet *q)
{
	if (!q)
		return;
	free(q->ignored.v);
	free(q->addressable.v);
	free(q->lv);
	free(q);
}

static bool before(const struct span *s, uint64_t space, uint64_t lo)
{
	return s->space < space || (s->space == space && s->hi <= lo);
}

/* the first span that is not wholly before (space, lo) */
static size_t lower(const struct spans *s, uint64_t space, uint64_t lo)
{
	size_t a = 0, b = s->n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (before(&s->v[m], space, lo))
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* take [lo, hi) of space out of s: spans cut, split or dropped */
static bool spans_clear(struct spans *s, uint64_t space, uint64_t lo,
			uint64_t hi)
{
	size_t i = lower(s, space, lo);

	while (i < s->n && s->v[i].space == space && s->v[i].lo < hi) {
		struct span *x = &s->v[i];

		if (x->lo < lo && x->hi > hi) {	/* split in two */
			struct span *v = s->v;

			if (s->n == s->cap) {
				size_t cap = s->cap ? 2 * s->cap : 16;

				if (!(v = realloc(s->v, cap * sizeof(*v))))
					return false;
				s->v = v;
				s->cap = cap;
			}
			memmove(&v[i + 1], &v[i], (s->n - i) * sizeof(*v));
			s->n++;
			v[i].hi = lo;
			v[i + 1].lo = hi;
			return true;
		}
		if (x->lo < lo) {
			x->hi = lo;
			i++;
		} else if (x->hi > hi) {
			x->lo = hi;
			i++;
		} else {
			memmove(x, x + 1, (s->n - i - 1) * sizeof(*x));
			s->n--;
		}
	}
	return true;
}

/* add [lo, hi) of space to s, merged with what it touches */
static bool spans_set(struct spans *s, uint64_t space, uint64_t lo,
		      uint64_t hi)
{
	size_t i;

	/* what overlaps or adjoins it joins it */
	i = lower(s, space, lo ? lo - 1 : 0);
	while (i < s->n && s->v[i].space == space && s->v[i].lo <= hi) {
		if (s->v[i].lo < lo)
			lo = s->v[i].lo;
		if (s->v[i].hi > hi)
			hi = s->v[i].hi;
		memmove(&s->v[i], &s->v[i + 1],
			(s->n - i - 1) * sizeof(s->v[0]));
		s->n--;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct span *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return false;
		s->v = v;
		s->cap = cap;
	}
	memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(s->v[0]));
	s->v[i] = (struct span){ space, lo, hi };
	s->n++;
	return true;
}

static struct level *level_of(const struct vg_errquiet *q, uint32_t tid)
{
	for (size_t i = 0; i < q->nlv; i++)
		if (q->lv[i].tid == tid)
			return &q->lv[i];
	return NULL;
}

static void change_level(struct vg_errquiet *q, uint32_t tid, int64_t d)
{
	struct level *l = level_of(q, tid);

	if (d == 1) {
		if (l) {
			if (l->level < UINT32_MAX)
				l->level++;
			return;
		}
		if (q->nlv == q->caplv) {
			size_t cap = q->caplv ? 2 * q->caplv : 8;
			struct level *v = realloc(q->lv, cap * sizeof(*v));

			if (!v)
				return;
			q->lv = v;
			q->caplv = cap;
		}
		q->lv[q->nlv++] = (struct level){ tid, 1 };
	} else if (d == -1 && l && !--l->level) {
		*l = q->lv[--q->nlv];
	}
}

/* [a, a+n), clipped at the top of the address space; false: no byte */
static bool range_of(uint64_t a, uint64_t n, uint64_t *lo, uint64_t *hi)
{
	if (!n)
		return false;
	*lo = a;
	*hi = n > UINT64_MAX - a ? UINT64_MAX : a + n;
	return *hi > *lo;
}

bool vg_errquiet_request(struct vg_errquiet *q, uint64_t space, uint32_t tid,
			 const uint64_t *w)
{
	uint64_t lo, hi;
	bool has = range_of(w[1], w[2], &lo, &hi);

	switch (w[0]) {
	case VG_CREQ_CHANGE_ERR_DISABLEMENT:
		change_level(q, tid, (int64_t)w[1]);
		return true;
	case VG_CREQ_DISABLE_ADDR_ERRS_IN_RANGE:
		if (has)
			spans_set(&q->ignored, space, lo, hi);
		return true;
	case VG_CREQ_ENABLE_ADDR_ERRS_IN_RANGE:
		if (has)
			spans_clear(&q->ignored, space, lo, hi);
		return true;
	case VG_CREQ_MAKE_MEM_DEFINED:
	case VG_CREQ_MAKE_MEM_UNDEFINED:
		if (has)
			spans_set(&q->addressable, space, lo, hi);
		return true;
	case VG_CREQ_MAKE_MEM_NOACCESS:
		if (has)
			spans_clear(&q->addressable, space, lo, hi);
		return true;
	default:
		return false;
	}
}

void vg_errquiet_freed(struct vg_errquiet *q, uint64_t space, uint64_t lo,
		       uint64_t hi)
{
	if (q && q->addressable.n && hi > lo)
		spans_clear(&q->addressable, space, lo, hi);
}

bool vg_errquiet_thread_off(const struct vg_errquiet *q, uint32_t tid)
{
	return q && level_of(q, tid) != NULL;
}

/* the end of the quiet run of s starting at or covering x, or x */
static uint64_t quiet_end(const struct spans *s, uint64_t space, uint64_t x)
{
	size_t i = lower(s, space, x);

	if (i < s->n && s->v[i].space == space && s->v[i].lo <= x)
		return s->v[i].hi;
	return x;
}

bool vg_errquiet_first_loud(const struct vg_errquiet *q, uint64_t space,
			    uint64_t lo, uint64_t hi, uint64_t *at)
{
	uint64_t x = lo;

	/* past every quiet span that covers x, of either set, until
	 * neither does */
	while (q && x < hi) {
		uint64_t y = quiet_end(&q->ignored, space, x);

		y = quiet_end(&q->addressable, space, y);
		if (y == x)
			break;
		x = y;
	}
	if (x >= hi)
		return false;
	*at = x;
	return true;
}

bool vg_errquiet_any_quiet(const struct vg_errquiet *q, uint64_t space,
			   uint64_t lo, uint64_t hi)
{
	const struct spans *s[2];

	if (!q)
		return false;
	s[0] = &q->ignored;
	s[1] = &q->addressable;
	for (int k = 0; k < 2; k++) {
		size_t i = lower(s[k], space, lo);

		if (i < s[k]->n && s[k]->v[i].space == space &&
		    s[k]->v[i].lo < hi)
			return true;
	}
	return false;
}

int vg_errquiet_threads_off(const struct vg_errquiet *q)
{
	return q ? (int)q->nlv : 0;
}

int vg_errquiet_ignored_ranges(const struct vg_errquiet *q)
{
	return q ? (int)q->ignored.n : 0;
}

void vg_errquiet_count(struct vg_errquiet *q)
{
	if (q)
		q->silenced++;
}

uint64_t vg_errquiet_silenced(const struct vg_errquiet *q)
{
	return q ? q->silenced : 0;
}
