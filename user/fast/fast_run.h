/* The in-process tier's run as fast_install.c (putting it in, taking it
 * out at the end) and fast_ckpt.c (taking it out for a checkpoint and
 * putting it back) share it; private to user/fast/. */
#ifndef VIGIL_FAST_RUN_H
#define VIGIL_FAST_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reloc/reloc.h"
#include "util/err.h"
#include "vigil_fast.h"

/* The agent's ring. A full one makes the program wait for vigil's read
 * (inproc/ring.c), so it needs room for bursts, not for a whole run; and
 * each of its pages costs the program a fault the first time round (a
 * fresh shared page: about 2 us here). 32 MB was 8,192 of those in a run
 * of allocs_bench under five memory specs, which 8 MB made 0.93 x as long,
 * waits for room included: 1 to 17 ms at the start, while the BPF load's
 * second thread still takes a CPU (docs/PERFORMANCE.md). */
#define RING_BYTES (8u << 20)
#define STUB_MAX 160		/* an entry or return stub */
#define HOOK_BYTES (2 * STUB_MAX + VG_RELOC_MAX)
#define MAX_AREAS 16		/* files with patched functions */
#define FN_READ_MAX (256u << 10)	/* the function scanned for jumps */

struct vg_inject;
struct vg_plan;
struct vg_objmap;
struct vg_fast_waker;

struct hook {
	char *path;		/* a copy of the plan's: a put-back after a
				 * checkpoint has no plan, and gdb's `vigil
				 * patches` asks after the plan is gone */
	char name[64];		/* its symbol, for `vigil patches` */
	uint64_t off, size;	/* file offset, symbol size */
	uint64_t fn;		/* in the target */
	uint64_t text_lo, text_hi;	/* the mapping it is in */
	uint64_t entry;		/* its entry stub */
	int area;
	struct vg_fast_hook h;	/* what the agent gets */
	struct vg_reloc r;
};

/* Stubs and relocated code near one file's functions (a jmp rel32
 * reaches 2 GB) */
struct area {
	const char *path;
	uint64_t near, addr;
	size_t len, used;
	uint8_t *buf;
	struct vg_reloc_jump *jumps;	/* the direct branches of the
					 * file's code, as mapped, for
					 * jumps into a patch */
	size_t njumps;
	uint64_t text_lo, text_hi;
};

struct vg_fast_run {
	pid_t pid;
	struct vg_probe *probe;
	struct vg_fast_shared *sh;	/* vigil's mapping of the region */
	size_t len;
	uint64_t remote;		/* the region in the target */
	uint64_t agent;			/* the agent's code in the target */
	size_t agent_len;
	uint64_t kmap[2];		/* the kernel tier's table and its
					 * count, mapped in the target (0:
					 * not) */
	size_t kmap_len[2];
	bool kernel;			/* a kernel-tier property is stepped
					 * here: its table is mapped in */
	struct area areas[MAX_AREAS];
	int nareas;
	struct hook hooks[VG_FAST_MAX_HOOKS];
	int nhooks;
	uint64_t stack_lo, stack_hi;	/* the main thread's, at install */
	bool follow;			/* --follow-fork: children record */
	__u64 settled;			/* the ring record last waited for
					 * (vg_fast_ring_settle) */
	uint32_t inside;		/* the `outside` depths the agent
					 * counts (the plan's fast_inside) */
	bool patched;
	uint64_t born;			/* the target's start time: a restore
					 * makes another process of its pid */
	bool out;			/* taken out for a checkpoint
					 * (fast_ckpt.c): nothing of it in
					 * the target */
	/* the events whose call's block the agent's map files
	 * (vg_om_fill_roles' filed) */
	uint64_t om_filed[VG_MAX_EVENTS / 64];
	struct vg_fast_waker *waker;	/* fast_wake.c (NULL: none) */
};

/* Every hook's patch written into the target (in: its threads seized),
 * or (out) the original bytes back: no thread left inside the bytes. */
int vg_fast_patch(struct vg_fast_run *f, struct vg_inject *in, bool out,
		  struct vg_err *e);

/* fast_hooks.c: each hook's stubs and relocated code into its area's
 * buffer, checked; f->sh->hooks filled. -1 with e set. */
int vg_fast_build_hooks(struct vg_fast_run *f, struct vg_inject *in,
			struct vg_err *e);

/* Put f (its hooks collected) into f->pid: a first install from plan, or
 * (plan NULL) again from the tables of old, vigil's mapping of the region
 * of an earlier install, whose counts it goes on from when keep_counts.
 * f->sh is the new region; -1 with e set and nothing of it reachable in
 * the target (f->sh as it was) when anything fails. */
int vg_fast_put_in(struct vg_fast_run *f, bool launching,
		   const struct vg_plan *plan, const struct vg_fast_shared *old,
		   bool keep_counts, struct vg_err *e);
/* fast_objmap.c: the bytes of the agent's object map for plan (0: none:
 * --max-objects heap blocks and the globals of what pid has mapped),
 * and the map set up at *off in f's region, up to end (fill's tables and
 * hooks already there); launching: vigil run's own child, whose every
 * allocation the agent sees. -1 with e set. */
size_t vg_fast_objmap_bytes(const struct vg_plan *plan, pid_t pid);
int vg_fast_objmap_fill(struct vg_fast_run *f, const struct vg_plan *plan,
			const size_t *off, size_t end, bool launching,
			struct vg_err *e);
/* old's map (and what goes with it) into sh at off, the same size (a
 * put-back: the process's heap is what it was) */
void vg_fast_objmap_copy(struct vg_fast_shared *sh, uint64_t off,
			 const struct vg_fast_shared *old);
/* sh's object map, read in place (NULL: none) */
struct vg_objmap *vg_fast_objmap(struct vg_fast_shared *sh);
/* f's ring and counts are the probe's second source (fast_source.c) */
void vg_fast_source_set(struct vg_fast_run *f);
/* the threads holding for a record before ring position `to` go on */
void vg_fast_holds_done(struct vg_fast_shared *sh, uint64_t to);
/* fast_wake.c: a thread that wakes vigil's loop when an agent's thread
 * waits in a hold, for f's region (started again for a new region) */
void vg_fast_wake_start(struct vg_fast_run *f);
void vg_fast_wake_stop(struct vg_fast_run *f);
/* every thread, the agent's or vigil's, sleeping on a futex word of the
 * region (not private: the region is mapped in both processes) */
void vg_fast_wake_all(uint32_t *word);
/* vigil's side of a region: its liveness mutex let go (the agent sees no
 * owner), its mapping here gone */
void vg_fast_region_free(struct vg_fast_shared *sh, size_t len);

#endif
