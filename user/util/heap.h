/* Memory faulted in ahead of a burst of large allocations (heap.c). */
#ifndef VIGIL_UTIL_HEAP_H
#define VIGIL_UTIL_HEAP_H

#include <stddef.h>

/* Until vg_heap_reserve_end: allocations up to bytes come from this
 * thread's malloc arena, which gets bytes of memory faulted in by one
 * system call (MADV_POPULATE_WRITE, Linux 5.14; nothing on older
 * kernels), kept when freed. For code that allocates large buffers it
 * writes at once: libbpf reads the kernel's BTF (5.5 MB on Linux 6.18)
 * into one and copies it into another, ~2,700 page faults that cost ~20
 * ms on a VM whose page faults trap to the hypervisor. Process-wide
 * malloc settings: call from one thread at a time. */
void vg_heap_reserve(size_t bytes);
/* malloc's starting thresholds again (mmap and trim, 128 KiB), fixed
 * from then on: glibc no longer raises them as large blocks are freed */
void vg_heap_reserve_end(void);

#endif
