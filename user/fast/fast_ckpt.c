/* The in-process tier out of the target for a checkpoint, and back in
 * after it (fast_internal.h). CRIU must dump a process with nothing of
 * vigil in it: a restored image has no vigil behind its patches, and CRIU
 * cannot dump the kernel tier's table (a BPF map) mapped in it anyway.
 *
 * Taking it out, with every thread seized:
 *   1. no thread's pc in a patch, the agent or a stub (stepped out, as the
 *      install does); a thread an entry stub stopped (a stop not handled
 *      yet) defers the checkpoint instead: stepped on, it would make the
 *      call the stop is for;
 *   2. the original bytes written back;
 *   3. each return the agent hijacked mended: the original return address
 *      back on the stack (its `after` event is lost, as a uretprobe's is
 *      across a checkpoint: probe/returns.h);
 *   4. the agent, the stubs, the threads' table, the region and the
 *      kernel tier's table unmapped in the target.
 * vigil keeps its own mapping of the region: the ring is drained after
 * (the agent wrote up to the seize, and nothing since), its counts go on.
 * Putting it back is an install as at the start (fast_install.c), from
 * the tables of that region: a fresh ring and threads' table; into the
 * same process, the counts and the rewound calls carried on, into a
 * restored one neither. */
#include "fast_internal.h"
#include "fast_run.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "fast/inject.h"
#include "probe/probe.h"
#include "fast/tramp.h"

/* 1. out of every range about to go */
static int clear_threads(struct vg_fast_run *f, struct vg_inject *in,
			 struct vg_err *e)
{
	uint64_t lo[VG_FAST_MAX_HOOKS + MAX_AREAS + 1],
		 hi[VG_FAST_MAX_HOOKS + MAX_AREAS + 1], pc, fn;
	int n = 0;
	pid_t tid;

	for (int i = 0; vg_inject_thread(in, i, &tid, &pc) == 0; i++)
		if (pc && vg_fast_stopped_hook(f, pc, &fn) >= 0)
			return vg_errf(e, "thread %d is stopped in the in-process tier's stub at 0x%" PRIx64 " (a stop not handled yet)",
				       tid, fn);
	for (int i = 0; i < f->nhooks; i++) {
		lo[n] = f->hooks[i].fn + 1;	/* its first byte is fine */
		hi[n++] = f->hooks[i].fn + f->hooks[i].r.patch_len;
	}
	for (int a = 0; a < f->nareas; a++) {
		lo[n] = f->areas[a].addr;
		hi[n++] = f->areas[a].addr + f->areas[a].len;
	}
	lo[n] = f->agent;
	hi[n++] = f->agent + f->agent_len;
	return vg_inject_step_clear(in, lo, hi, n, e);
}

/* 3. every frame of every thread's entry whose return address on the
 * stack is still its hook's return stub gets the original one back. A
 * stack gone (a thread that exited) is not read. */
static void mend_returns(struct vg_fast_run *f, struct vg_inject *in)
{
	uint64_t base = f->remote + f->sh->threads_off + VG_FAST_THREADS_HDR;
	uint64_t n = vg_fast_nthreads(f->sh->threads_size), word;
	struct vg_fast_thread t;
	size_t head = offsetof(struct vg_fast_thread, fr);

	for (uint64_t i = 0; i < n; i++) {
		uint64_t at = base + i * sizeof(t);

		if (vg_inject_read(in, at, &t, head, NULL) || !t.tid || !t.depth)
			continue;
		if (t.depth > VG_FAST_SHADOW)
			t.depth = VG_FAST_SHADOW;
		if (vg_inject_read(in, at + head, t.fr,
				   t.depth * sizeof(t.fr[0]), NULL))
			continue;
		for (uint32_t k = 0; k < t.depth; k++) {
			const struct vg_fast_frame *fr = &t.fr[k];

			if (fr->hook >= (uint32_t)f->nhooks ||
			    vg_inject_read(in, fr->rsp, &word, 8, NULL) ||
			    word != f->hooks[fr->hook].h.ret_stub)
				continue;
			vg_inject_write(in, fr->rsp, &fr->ret, 8, NULL);
		}
	}
}

/* 4. what vigil mapped in the target; a failure is said, and the dump
 * goes on (CRIU says what it cannot take) */
static void unmap_all(struct vg_fast_run *f, struct vg_inject *in)
{
	uint64_t at[MAX_AREAS + 5];
	size_t len[MAX_AREAS + 5];
	int n = 0;
	long r;

	for (int a = 0; a < f->nareas; a++) {
		at[n] = f->areas[a].addr;
		len[n++] = f->areas[a].len;
	}
	at[n] = f->agent;
	len[n++] = f->agent_len;
	at[n] = f->remote + f->sh->threads_off;
	len[n++] = f->sh->threads_size;
	at[n] = f->remote;
	len[n++] = f->len;
	for (int k = 0; k < 2; k++)
		if (f->kmap[k]) {
			at[n] = f->kmap[k];
			len[n++] = f->kmap_len[k];
		}
	for (int k = 0; k < n; k++) {
		struct vg_err e = { 0 };

		if (!at[k] || !len[k])
			continue;
		if (vg_inject_syscall(in, &r, SYS_munmap, (long)at[k],
				      (long)len[k], 0, 0, 0, 0, &e) || r)
			fprintf(stderr, "vigil: in-process tier: unmapping 0x%" PRIx64 " in pid %d: %s\n",
				at[k], f->pid, e.msg[0] ? e.msg : strerror((int)-r));
	}
}

int vg_fast_take_out(struct vg_fast_run *f, struct vg_err *e)
{
	struct vg_inject *in;

	if (!f || f->out || !f->patched)
		return 0;
	if (vg_inject_seize(f->pid, &in, e))
		return -1;
	/* a thread waiting in a hold goes on out of the agent, seized: the
	 * drain after arms what its record asked for before the process
	 * runs again */
	vg_fast_holds_done(f->sh, f->sh->head);
	if (clear_threads(f, in, e)) {
		vg_inject_release(in);	/* as it was, patches and all */
		return -1;
	}
	__atomic_store_n(&f->sh->enabled, 0, __ATOMIC_RELEASE);
	if (vg_fast_patch(f, in, true, e)) {
		/* the stubs stay: a patch still jumps there */
		vg_inject_release(in);
		__atomic_store_n(&f->sh->enabled, 1, __ATOMIC_RELEASE);
		return -1;
	}
	/* from here on the target has none of it, whatever fails */
	mend_returns(f, in);
	vg_probe_fast_inside(f->probe, 0, 0, 0);	/* its table goes */
	vg_probe_fast_released(f->probe, 0);
	unmap_all(f, in);
	vg_inject_release(in);
	f->out = true;
	f->patched = false;
	return 0;
}

int vg_fast_put_back(struct vg_fast_run *f, bool fresh, struct vg_err *e)
{
	struct vg_fast_shared *old;
	size_t old_len;

	if (!f || !f->out)
		return 0;
	old = f->sh;
	old_len = f->len;
	/* a restored process is a new one: the counts of the checkpoint are
	 * the probes' (restore.c), the tier starts from none */
	if (vg_fast_put_in(f, false, NULL, old, !fresh, e))
		return -1;
	vg_fast_region_free(old, old_len);
	return 0;
}

bool vg_fast_is_out(const struct vg_fast_run *f)
{
	return f && f->out;
}

void vg_fast_gone(struct vg_fast_run *f)
{
	if (!f)
		return;
	f->out = true;
	f->patched = false;
}
