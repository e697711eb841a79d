/* Where the program tells a memory checker not to report: valgrind's
 * client requests that memcheck obeys (valgrind.h, memcheck.h), kept as
 * state vigil consults before it reports an access to a freed block
 * (docs/reference/leak-check.md, "Where the program asks for quiet"). Pure: no process,
 * no probe; watchset_quiet.c feeds it the requests in the order the
 * program made them. Private to user/watchset/ (and its unit test).
 *
 *   VALGRIND_DISABLE_ERROR_REPORTING   per thread, a nestable level, as
 *   VALGRIND_ENABLE_ERROR_REPORTING    valgrind's err_disablement_level
 *                                      (never below 0)
 *   VALGRIND_DISABLE_ADDR_ERROR_REPORTING_IN_RANGE(a, n)  [a, a+n) is
 *   VALGRIND_ENABLE_ADDR_ERROR_REPORTING_IN_RANGE(a, n)   ignored, or no
 *                                      more (memcheck's ignored ranges)
 *   VALGRIND_MAKE_MEM_DEFINED(a, n),   [a, a+n) is addressable: an access
 *   VALGRIND_MAKE_MEM_UNDEFINED(a, n)  there is no error until the memory
 *                                      is freed again (vg_errquiet_freed)
 *   VALGRIND_MAKE_MEM_NOACCESS(a, n)   addressable no more
 *
 * Ranges are per address space (`space`: an id the caller picks, one per
 * process; a followed fork's child has its own). */
#ifndef VIGIL_WATCHSET_ERRQUIET_H
#define VIGIL_WATCHSET_ERRQUIET_H

#include <stdbool.h>
#include <stdint.h>

struct vg_errquiet;

struct vg_errquiet *vg_errquiet_new(void);
void vg_errquiet_free(struct vg_errquiet *q);

/* One client request, its array's six words (request, arg1..arg5), made
 * by thread tid in address space `space`. Returns true if it is one of the above
 * (and was applied), false for any other request. */
bool vg_errquiet_request(struct vg_errquiet *q, uint64_t space, uint32_t tid,
			 const uint64_t *word);

/* Memory [lo, hi) of space was freed (a block entered a watched state):
 * memcheck marks it unaddressable, undoing earlier MAKE_MEM_DEFINED. */
void vg_errquiet_freed(struct vg_errquiet *q, uint64_t space, uint64_t lo,
		       uint64_t hi);

/* Is thread tid's error reporting off (its level above 0)? */
bool vg_errquiet_thread_off(const struct vg_errquiet *q, uint32_t tid);

/* The first byte of [lo, hi) of space that is neither in an ignored range
 * nor made addressable, in *at: false when there is none (an access
 * there is not reported). */
bool vg_errquiet_first_loud(const struct vg_errquiet *q, uint64_t space,
			    uint64_t lo, uint64_t hi, uint64_t *at);

/* Does any byte of [lo, hi) lie in an ignored or addressable range? (A
 * debug register says which piece of up to 8 bytes was touched, not which
 * byte: a piece partly quiet is taken as quiet.) */
bool vg_errquiet_any_quiet(const struct vg_errquiet *q, uint64_t space,
			   uint64_t lo, uint64_t hi);

/* What the run ends with, as memcheck warns at exit: threads whose
 * reporting is still off, ranges still ignored. */
int vg_errquiet_threads_off(const struct vg_errquiet *q);
int vg_errquiet_ignored_ranges(const struct vg_errquiet *q);

/* Accesses not reported because of the above, counted by watchset_quiet.c */
void vg_errquiet_count(struct vg_errquiet *q);
uint64_t vg_errquiet_silenced(const struct vg_errquiet *q);

#endif
