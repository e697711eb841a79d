/* vigil's side of the in-process tier's ring (include/vigil_fast.h): the
 * one consumer of the records the agent's threads write
 * (inproc/ring.c). */
#ifndef VG_FAST_RING_H
#define VG_FAST_RING_H

#include <stdbool.h>
#include <stddef.h>

#include "vigil_fast.h"

/* A BUSY record (a producer mid-write) stops the reading; one that stays
 * BUSY this long is skipped and counted (VG_FCNT_STUCK) */
#define VG_FAST_STUCK_NS 1000000000ull

/* Hands each written record (after its struct vg_fast_rec header: a
 * struct vg_rec_hdr and what follows, len bytes) to fn, in ring order,
 * until the ring is empty or at a record still being written. base is
 * vigil's mapping of the region. fn's non-zero return stops the reading
 * after that record and is returned; otherwise 0. */
int vg_fast_ring_consume(struct vg_fast_shared *sh, void *base,
			 int (*fn)(void *ctx, const void *rec, size_t len),
			 void *ctx);

/* The record at the ring's tail is being written (a producer between its
 * reservation and its store of DONE): wait for it, VG_FAST_BUSY_WAIT_NS
 * at most, once per record (*waited: the caller's, the record it last
 * waited for, + 1). true: it is written now. */
#define VG_FAST_BUSY_WAIT_NS 20000000ull
bool vg_fast_ring_settle(struct vg_fast_shared *sh, void *base,
			 __u64 *waited);

#endif
