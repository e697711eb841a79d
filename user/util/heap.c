/* Memory faulted in ahead of a burst of large allocations (heap.h).
 *
 * glibc serves a request of 128 KiB or more with a fresh mmap, whose
 * pages fault in one by one as they are written, and gives it back at
 * free. With the mmap threshold raised, such requests come from the
 * arena's heap instead; with the trim threshold raised too, a block
 * freed there stays mapped, so one block faulted in at once and freed
 * serves the allocations that follow. */
#include "heap.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

#define DEFAULT_THRESHOLD (128 * 1024)	/* glibc's M_MMAP_THRESHOLD, M_TRIM_THRESHOLD */

static bool raised;	/* the thresholds are vg_heap_reserve's */

void vg_heap_reserve(size_t bytes)
{
	char *m;
	uintptr_t a, end;

	if (!bytes)
		return;
	raised = true;
	mallopt(M_MMAP_THRESHOLD, (int)(bytes + (1u << 20)));
	mallopt(M_TRIM_THRESHOLD, (int)(2 * bytes + (1u << 20)));
	if (!(m = malloc(bytes)))
		return;
	a = ((uintptr_t)m + 4095) & ~(uintptr_t)4095;
	end = ((uintptr_t)m + bytes) & ~(uintptr_t)4095;
	if (end > a)
		madvise((void *)a, end - a, MADV_POPULATE_WRITE);
	free(m);
}

void vg_heap_reserve_end(void)
{
	if (!raised)
		return;
	raised = false;
	mallopt(M_MMAP_THRESHOLD, DEFAULT_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, DEFAULT_THRESHOLD);
}
