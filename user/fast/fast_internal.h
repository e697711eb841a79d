/* The in-process tier's parts (fast.h says what the tier is) */
#ifndef VIGIL_FAST_INTERNAL_H
#define VIGIL_FAST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "util/err.h"

struct vg_plan;
struct vg_probe;
struct vg_fast_run;

/* Put the plan's in-process sites into process pid (fast_install.c):
 * launching: vigil run's child, stopped before its exec, which is run to
 * its entry point first and left there in a group stop; else a running
 * process, stopped with ptrace while it is patched and let go after.
 * The ring is handed to probe as its second source. follow: forked
 * children record too, as themselves (--follow-fork), else they record
 * nothing. -1 with e set when
 * anything fails: then nothing of it is left in the target. */
int vg_fast_install(pid_t pid, bool launching, bool follow,
		    const struct vg_plan *plan,
		    struct vg_probe *probe, struct vg_fast_run **out,
		    struct vg_err *e);
/* Take the patches out (the target still there) and stop recording;
 * frees f. The agent and its stubs stay mapped: a thread may still return
 * through one. */
void vg_fast_uninstall(struct vg_fast_run *f, bool target_gone);
/* How many functions are patched */
int vg_fast_nhooks(const struct vg_fast_run *f);
pid_t vg_fast_pid(const struct vg_fast_run *f);
/* how many times a thread waited for room in the ring (inproc/ring.c),
 * and in *ns how long in all */
uint64_t vg_fast_waited(const struct vg_fast_run *f, uint64_t *ns);
/* vigil's mapping of the region it shares with the agent */
struct vg_fast_shared *vg_fast_region(struct vg_fast_run *f);
/* the region's address in the target */
uint64_t vg_fast_remote(const struct vg_fast_run *f);
/* the agent's code in the target, its length in *len */
uint64_t vg_fast_agent(const struct vg_fast_run *f, uint64_t *len);
/* The hook whose entry stub stopped a thread at pc (tramp.h's
 * VG_TRAMP_STOPPED), its function's address in *fn; -1: none */
int vg_fast_stopped_hook(const struct vg_fast_run *f, uint64_t pc,
			 uint64_t *fn);

/* fast_ckpt.c: before a checkpoint, everything of the tier out of the
 * (stopped) target: patches, stubs, agent, region, the kernel tier's
 * table; vigil keeps its mapping of the region, whose ring is drained
 * after. 0 when done (or nothing was in), -1 with e set when it could not
 * be, and then the target has it as before. */
int vg_fast_take_out(struct vg_fast_run *f, struct vg_err *e);
/* After it: the tier in again, as at the start (the target stopped);
 * fresh: a restored process, the tier's counts start from none (else they
 * go on). 0 when done or nothing was out, -1 with e set: nothing of it in
 * the target, its calls unseen. */
int vg_fast_put_back(struct vg_fast_run *f, bool fresh, struct vg_err *e);
/* taken out, not put back yet */
bool vg_fast_is_out(const struct vg_fast_run *f);
/* The target was killed (a restore in the session replaces it): nothing
 * of the tier to take out of it; vg_fast_put_back puts it in the new
 * one. */
void vg_fast_gone(struct vg_fast_run *f);

/* One patched function, for gdb's extension (fast_gdb.c): where its
 * patch, stubs and relocated first instructions are */
struct vg_fast_hook_view {
	const char *name, *path;
	uint64_t off, fn;
	uint32_t patch_len, nret;
	uint8_t orig[16];	/* [fn, fn + patch_len) as the file has it */
	uint64_t entry;		/* the entry stub */
	uint64_t stopped;	/* the pc of a thread its entry stub stopped */
	uint64_t reloc, ret_stub;
};
/* hook i, or -1 past the last */
int vg_fast_hook_view(const struct vg_fast_run *f, int i,
		      struct vg_fast_hook_view *v);

/* fast_rewind.c: thread tid, stopped by an entry stub at a kernel-tier
 * stop state, put back on the function's first instruction with the
 * registers of the call, as gdb then shows it (bt: the call); its next
 * entry there is that call going on. 0 when done or when tid is not
 * stopped in a stub (a user-tier stop), -1 with e set. */
int vg_fast_rewind(struct vg_fast_run *f, pid_t tid, struct vg_err *e);
/* The call of hook at entry %rsp rsp is put back on by another (gdb's
 * extension, which holds the thread): the agent does not report it
 * again when it goes on. -1: no room. */
int vg_fast_note_rewound(struct vg_fast_run *f, pid_t tid, int hook,
			 uint64_t rsp);

/* fast_gdb.c: the control commands of the live gdb session
 * (scripts/gdb/vigil.py): `patches`, `fast-rewound TID HOOK RSP`,
 * `fast-returns`; 0 when cmd is none of them (feature.h's ctl) */
int vg_fast_ctl(struct vg_fast_run *f, const char *cmd, json_t *args,
		char **text, json_t **data, struct vg_err *e);

/* fast_target.c: the target's __vdso_clock_gettime (0: none found);
 * has any of its threads a seccomp filter (or strict mode)? Then the
 * agent takes no patch back when vigil is gone: its system calls there
 * (vigil_fast.h's `seccomp`). Unreadable: as if so. */
uint64_t vg_fast_vdso_clock_gettime(pid_t pid);
bool vg_fast_any_seccomp(pid_t pid);

#endif
