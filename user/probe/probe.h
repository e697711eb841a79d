/* The probe layer: loads bpf/vigil/ (one linked object), writes the spec's configuration
 * into its maps, attaches one uprobe per event of the spec to the target,
 * and hands the ring-buffer records back decoded.
 *
 * Everything it attaches is owned by file descriptors of this process
 * (nothing is pinned), so the kernel detaches every probe when vigil exits,
 * however it exits.
 */
#ifndef VIGIL_PROBE_H
#define VIGIL_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../spec/spec.h"
#include "vigil_event.h"

struct vg_probe;
struct vg_plan;
struct vg_plan_opts;
struct vg_objmap;

/* While records keep coming, the consumer polls this often, and the probes
 * force at most one wake-up per this time (bpf/vigil.bpf.h, wake_gap_ns). */
#define VG_WAKE_GAP_US 100

struct vg_probe_opts {
	/* what to install (user/plan/plan.h): each property's tier and
	 * stop states, each event's flags (user tier, stacks, holds,
	 * --dynamic's arming), the probe sites and the programs they run */
	const struct vg_plan *plan;
	pid_t pid;			/* the target's tgid */
	const char *binary;		/* the target's executable, absolute */
	/* --lib: libraries the target may load with dlopen, searched for
	 * the spec's functions after the loader's (user/sym/libs.h); the
	 * caller keeps them while the probe set lives */
	const char *const *libs;
	size_t nlibs;
	size_t ringbuf_bytes;		/* power of two; 0 = default */
	uint32_t max_kslices;		/* kernel-tier slice table; 0 = default */
	bool all_events;		/* send every event to user space (--record) */
	bool follow_forks;		/* monitor the target's descendants too */
	/* warnings found while attaching (a spec's parameter name that is
	 * not the function's own); NULL: not shown */
	FILE *warn;
	/* vigil run: the target is stopped before its exec, the probes go in
	 * first (watchpoints need the exec done: it stops there again) */
	bool launching;
	/* vg_probe_early_start's, or NULL; vg_probe_open uses it up (the
	 * caller still frees it) */
	struct vg_probe_early *early;
	/* the kernel tier's object map (bpf/kmem.bpf.h): the objects it
	 * holds, the plan's --max-objects and the globals to file; 0: the
	 * plan has none (plan->objmap_bpf false) */
	uint64_t objmap_objects;
	/* vigil watch: no target of its own (pid 0, no links for it); a
	 * process that execs the file watch_dev/watch_ino names (dev_t as the
	 * kernel encodes it, major << 20 | minor) is followed, held at its
	 * exec until vg_probe_follow; follow_forks is set too */
	bool watch;
	uint32_t watch_dev;
	uint64_t watch_ino;
	/* --lib-mapped: a process mapping this file executable is followed,
	 * held as its mmap returns (0: not watching a library) */
	uint32_t watch_lib_dev;
	uint64_t watch_lib_ino;
	/* --same-build: a process that execs a file of this name (no
	 * slash) is held too, for the caller to follow or refuse */
	const char *watch_name;
	/* vigil load in vigil watch (user/watch/watch_load.c): another
	 * probe set holds the processes at their exec and fork; this one
	 * holds none and follows those it is given (vg_probe_adopt,
	 * vg_probe_follow), and their forks' children until told to refuse
	 * them. With watch (slices keyed by process) and follow_forks set,
	 * watch_ino and watch_lib_ino 0. */
	bool follower;
	/* breakpoints of a released watch stay in the threads, disabled,
	 * for the next watch to move there (user/probe/probe_watch.c):
	 * the debug registers are vigil's alone, not a debugger's too (a
	 * live session's gdb sets its own) */
	bool keep_breakpoints;
};

/* Before the plan is built: the BPF object starts loading on another CPU
 * (parsing the kernel's BTF, verifying its programs), configured as the
 * spec's events say the plan will ask (ktier: a property will be in the
 * kernel tier; stacks: events will take user stacks, --stacks or
 * --leak-check), with maps as ringbuf_bytes and max_kslices size them
 * (0: the defaults, as in vg_probe_opts); creq: the program makes
 * valgrind client requests (vg_plan_creq_any); fast: what the run asks
 * of the in-process tier (its events need no program; NULL: nothing).
 * vg_probe_open takes that
 * object when it would configure its own the same, else drops it. Not
 * for --follow-fork or vigil watch. NULL only without memory. */
struct vg_probe_early *vg_probe_early_start(const struct vg_spec *spec,
					    size_t ringbuf_bytes,
					    uint32_t max_kslices, bool ktier,
					    bool stacks, bool creq,
					    const struct vg_plan_opts *fast);
void vg_probe_early_free(struct vg_probe_early *early);

/* One record from the ring buffer. */
struct vg_probe_rec {
	const struct vg_rec_hdr *h;
	const struct vg_rec_event *ev;	/* kind VG_REC_EVENT */
	/* with the C strings of str(p), for events that read some; else
	 * NULL */
	const struct vg_rec_event_str *strs;
	const struct vg_rec_proc *proc;	/* kind VG_REC_PROC */
	const struct vg_rec_kstep *ks;	/* the VG_REC_K* kinds */
};

typedef int (*vg_probe_cb)(void *ctx, const struct vg_probe_rec *r);

struct vg_probe *vg_probe_open(const struct vg_spec *spec,
			       const struct vg_probe_opts *opts,
			       struct vg_err *e);
/* Also lets go of the children held at their fork whose records were not
 * read. */
void vg_probe_close(struct vg_probe *p);
/* The monitored processes are gone: every uprobe starts detaching now, so
 * that the kernel's grace periods (~40-90 ms) run while the caller reports
 * the run's end; vg_probe_close waits for them. */
void vg_probe_detach_now(struct vg_probe *p);

/* The target's exit, as its last thread's exit tracepoint saw it: the
 * status (0-255) or the killing signal. False until it has exited. This is
 * how vigil knows the status of a process it attached to, which only the
 * parent can wait for. */
bool vg_probe_exit_status(const struct vg_probe *p, int *code, int *sig);
/* and when (CLOCK_MONOTONIC ns); false until it has exited */
bool vg_probe_exit_time(const struct vg_probe *p, uint64_t *ns);

/* Detach every uprobe (lifecycle tracepoints stay) and attach them again,
 * at the same places. A CRIU dump must not see the int3 a uprobe writes
 * into the text page: the restored process would die of SIGTRAP. The
 * caller keeps the target stopped in between, so no call is missed. */
int vg_probe_suspend(struct vg_probe *p);
int vg_probe_resume(struct vg_probe *p, struct vg_err *e);

/* --follow-fork: attach the uprobes for pid, a followed process the fork
 * tracepoint holds stopped (VG_RF_FORKSTOP), then let it go. It is let go
 * even when this fails (-1, e set: the process is then not followed);
 * one that has already ended is no error. A no-op when the kernel cannot
 * hold a child at its fork: the target's probes take any process then.
 * vg_probe_unfollow destroys the links of a followed process that ended
 * (VG_PROC_EXIT). */
int vg_probe_follow(struct vg_probe *p, pid_t pid, struct vg_err *e);
void vg_probe_unfollow(struct vg_probe *p, pid_t pid);
/* vigil watch: follow a process found running (not held: its probes go
 * in while it runs, as vigil attach's do), as vg_probe_follow; and let go
 * of one not to be followed (a held one resumes, unmonitored). */
int vg_probe_adopt(struct vg_probe *p, pid_t pid, struct vg_err *e);
void vg_probe_refuse(struct vg_probe *p, pid_t pid);
/* vigil watch, a checkpoint of one watched process (probe_pause.c): its
 * own uprobe links out, every int3 gone from its text when this returns
 * (1: pid has no links of its own, and none is still being destroyed),
 * and back in. The caller keeps it
 * stopped in between. A failed unpause leaves it with no probes at all
 * (e set): it is then no longer monitored. */
int vg_probe_pause_proc(struct vg_probe *p, pid_t pid);
int vg_probe_unpause_proc(struct vg_probe *p, pid_t pid, struct vg_err *e);

/* Processes a program stopped at their exec or fork for vigil
 * (VG_FOLLOW_HELD) that vigil did not live to let go (probe_orphans.c):
 * the descriptors the guard process keeps for it (2 of them, or 0 when
 * nothing is held so), and what the guard runs with its copies once
 * vigil has exited (user/proc/guard.h, vg_guard_on_death). */
int vg_probe_orphan_fds(const struct vg_probe *p, int fds[2]);
void vg_probe_orphans_resume(const int *fds, int nfds);
/* vigil watch: the files of a followed process in a container that are
 * its own copies of the probed ones (its links are on them), and those
 * it has none of, as "probed in its own copies: libc.so.6 (same build),
 * prog (by symbol); not in it (its probes there see nothing): libz.so.1"
 * into buf; how many files that names. */
int vg_probe_own_files(const struct vg_probe *p, pid_t pid, char *buf,
		       size_t len);

/* Hardware watchpoints (`write x`, `read x`, `access x`;
 * user/probe/probe_watch.c). One breakpoint covers every thread of the
 * process, those that exist and those they create later (inherited). */
struct vg_wp {
	uint64_t addr;		/* aligned to len */
	uint8_t len;		/* 1, 2, 4 or 8 */
	uint8_t kind;		/* 0 write, 1 read or write */
	uint8_t conv;		/* enum vg_arg_conv: the bits -> `value` */
	uint8_t flags;		/* VG_WPF_* */
	uint32_t event;
	uint64_t base;		/* the slice's watched address (0: none):
				 * vg_wp_conf's */
};

/* Whether the spec watches anything, and a global of the program (those
 * are armed once the program is loaded: for vigil run, at the stop of the
 * exec that starts it, vg_probe_opts.launching). */
bool vg_probe_has_watches(const struct vg_probe *p);
bool vg_probe_has_global_watches(const struct vg_probe *p);
/* The breakpoint the plan gives a global (user/plan/plan.h) in pid: its
 * address moved by the program's load bias. */
struct vg_plan_gwatch;
int vg_probe_watch_global(struct vg_probe *p, pid_t pid,
			  const struct vg_plan_gwatch *g, struct vg_wp *out,
			  struct vg_err *e);

/* Arm wp in every thread of pid; returns its id (>= 0), or -1 with e set
 * (errno ENOSPC: a thread's four debug registers are taken). */
int vg_probe_wp_add(struct vg_probe *p, pid_t pid, const struct vg_wp *wp,
		    struct vg_err *e);
/* Change what a hit does (VG_WPF_*) */
int vg_probe_wp_set(struct vg_probe *p, int id, const struct vg_wp *wp,
		    struct vg_err *e);
void vg_probe_wp_del(struct vg_probe *p, int id);
void vg_probe_disarm_watches(struct vg_probe *p);

/* --dynamic: attach (on) or detach the entry probes of `event`. While
 * the probes are suspended (a CRIU dump), only the wish is recorded. */
int vg_probe_event_attach(struct vg_probe *p, int event, bool on,
			  struct vg_err *e);
/* The probes' view of which events are attached (bit e): an arming event
 * whose events are not all in it stops the target (VG_RF_ARMSTOP). */
void vg_probe_set_armed(struct vg_probe *p, uint64_t mask);
/* Wait until every probe program that may have read the previous armed
 * mask has submitted its record: true when that happened within
 * timeout_ms. */
bool vg_probe_quiesce(struct vg_probe *p, int timeout_ms);

/* A frame of a captured user stack: the file (by build id) and the offset
 * in it, or, when the kernel could not tell, the address. */
struct vg_stack_frame {
	bool has_build_id;
	uint8_t build_id[20];
	uint64_t offset;	/* in the file, or the address */
};

/* The frames (innermost first) of a captured user stack; returns how many
 * (at most max), 0 when the id is unknown. */
int vg_probe_stack(const struct vg_probe *p, int64_t id,
		   struct vg_stack_frame *out, int max);
/* The same stack symbolized, a line per frame (at most max; how many), by
 * the symbolizer get(ctx) returns, asked only when there is a frame;
 * caller: the return address an entry probe read (the real one under a
 * pending uretprobe), the frame a frame-pointer walk misses at a
 * function's entry, or 0 */
struct vg_symbolizer;
int vg_probe_stack_lines(const struct vg_probe *p, int64_t id,
			 struct vg_symbolizer *(*get)(void *ctx), void *ctx,
			 uint64_t caller, char (*lines)[320], int max);

/* Kernel tier: the next checkpoint stop may come at monotonic time
 * next_ns (bpf/kstep.bpf.h, ckpt_next_ns). */
void vg_probe_arm_checkpoint(struct vg_probe *p, uint64_t next_ns);

/* Write one kernel-tier slice (restoring a checkpoint's monitor state).
 * prop is the spec's property index; key and vars as in vg_kslice_cb. */
int vg_probe_set_kslice(struct vg_probe *p, int prop, const uint64_t *key,
			int state, const int64_t *vars, struct vg_err *e);

/* A restore inside the session (user/probe/probe_restore.c), the target
 * stopped and the uprobes suspended: empty the kernel tier's slice table;
 * set an event's counts (vg_probe_counts) back; forget the exit of the
 * process the restored one replaces. */
void vg_probe_clear_kslices(struct vg_probe *p);
void vg_probe_set_counts(struct vg_probe *p, int event, uint64_t hits,
			 uint64_t lost);
void vg_probe_forget_exit(struct vg_probe *p);

/* A file descriptor that becomes readable when records are waiting. */
int vg_probe_fd(const struct vg_probe *p);

/* Say whether the reader drains on a timer (true) or waits on
 * vg_probe_fd (false): the probes force no wake-up while it polls. */
void vg_probe_set_polling(struct vg_probe *p, bool polling);

/* Deliver every waiting record to cb; returns how many, or -1 (e set) if
 * cb failed or the ring buffer could not be read. */
int vg_probe_drain(struct vg_probe *p, vg_probe_cb cb, void *ctx,
		   struct vg_err *e);

/* A second ring of records in the BPF ring's layouts: the in-process
 * tier's (user/fast/). Drained after the BPF ring at every vg_probe_drain,
 * its records delivered as the ring's; its counts added to
 * vg_probe_counts and vg_probe_counter. One at most. */
/* A live block an object map holds (a heap block or a pool's): where,
 * how long, the allocation's event */
struct vg_probe_block {
	uint64_t base, len;
	int event;
};
struct vg_probe_source {
	/* hand each waiting record to deliver(dctx, data, size), which
	 * returns non-zero to stop; returns how many, or -1 */
	int (*drain)(void *ctx, int (*deliver)(void *dctx, void *data,
					       size_t size),
		     void *dctx);
	/* a drain hands a batch: are more records waiting? */
	bool (*waiting)(void *ctx);
	/* a drain stopped at a record being written: wait for it (bounded);
	 * true when it is written now */
	bool (*settle)(void *ctx);
	void (*counts)(void *ctx, int event, uint64_t *hits, uint64_t *lost);
	uint64_t (*counter)(void *ctx, int c);	/* enum vg_counter */
	/* what the watchset tells the probes about holds
	 * (vg_probe_armed_addr, vg_probe_holds_futile), told the source
	 * too: its events may hold and release */
	void (*armed)(void *ctx, uint64_t addr, bool on);
	void (*futile)(void *ctx, uint64_t releases);
	/* the holds of every record handled so far are made (its threads
	 * that wait for them go on) */
	void (*holds_done)(void *ctx);
	/* the CPU a thread waiting for a hold waits on; -1: none, or not
	 * known (the watchpoints' calls are made from there: watch.h) */
	int (*hold_cpu)(void *ctx);
	/* its own step of kernel-tier property k (the object map's memory
	 * predicates, include/vigil_fast.h's kunknown): the steps a
	 * predicate left unknown, and of those the ones that left the
	 * slice out of its initial state */
	void (*kunknown)(void *ctx, int k, uint64_t *n, uint64_t *kept);
	/* its object map (include/vigil_objmap.h), mapped; NULL: none
	 * (vg_probe_block reads it) */
	struct vg_objmap *(*objmap)(void *ctx);
	/* does that map file the block event allocates? */
	bool (*files)(void *ctx, int event);
	void *ctx;
};
void vg_probe_set_source(struct vg_probe *p, const struct vg_probe_source *s);

/* The kernel tier's slice table and the BPF global data that counts its
 * slices, for the in-process tier to step the same table inside the
 * target: the maps' fds (the probe's: not to be closed), their sizes,
 * where kslot_count is in the global data, the table's mask and bound.
 * -1 when there is no kernel tier. */
struct vg_probe_kshare {
	int kslots_fd, bss_fd;
	size_t kslots_len, bss_len;
	uint32_t count_off, mask, max;
};
int vg_probe_kslot_share(const struct vg_probe *p, struct vg_probe_kshare *k);
/* The in-process tier's per-thread table in the target (its first
 * entry; 0: none now), its entries - 1, and the `outside` depths the
 * agent counts there: probes read them (bpf/fast_inside.bpf.h) */
void vg_probe_fast_inside(struct vg_probe *p, uint64_t table, uint32_t mask,
			  uint32_t depths);
/* The agent's ring of released addresses in the target (0: none now):
 * a watchpoint hit on one stops nothing (bpf/released.bpf.h) */
void vg_probe_fast_released(struct vg_probe *p, uint64_t at);

/* Per event: how many times the probe fired, and how many records it could
 * not deliver because the ring buffer was full. */
void vg_probe_counts(const struct vg_probe *p, int event, uint64_t *hits,
		     uint64_t *lost);
/* The target's probes (uprobes, uretprobes, tracepoints): how many are
 * attached now (--dynamic detaches some, a checkpoint all for a while) of
 * how many. */
void vg_probe_links(const struct vg_probe *p, int *attached, int *total);
/* Global counters, enum vg_counter. */
uint64_t vg_probe_counter(const struct vg_probe *p, enum vg_counter c);
/* The kernel tier's object map (bpf/kmem.bpf.h; probe_objmap.c).
 * vg_probe_objmap_events: each event's part (user/objmap/om_fill.h),
 * filed: the events whose call's block the map files (its bitmap),
 * whole: every allocation reaches the probes (the heap's range may be
 * filed). vg_probe_objmap_start: at the launched program's exec, before
 * it runs (vg_probe_stops_at_exec), the map emptied and initialised, its
 * heap's start (start_brk) kept when whole (0: no heap range, a process
 * a restore brought back); the map, to file the globals in, or NULL
 * when the plan has none. */
struct vg_fast_omev;
int vg_probe_objmap_events(struct vg_probe *p, const struct vg_fast_omev *omev,
			   const uint64_t *filed,
			   int nevents, bool whole, struct vg_err *e);
struct vg_objmap *vg_probe_objmap_start(struct vg_probe *p,
					uint64_t start_brk);
bool vg_probe_stops_at_exec(const struct vg_probe *p);
/* The map once set up at the exec, else NULL; and whether the mapped
 * object starting at start has yet to have its globals filed in it
 * (marked filed now) */
struct vg_objmap *vg_probe_objmap_ready(const struct vg_probe *p);
bool vg_probe_objmap_take(struct vg_probe *p, uint64_t start);
/* The second source's own step of kernel-tier property k (its kunknown):
 * 0 and 0 without one */
void vg_probe_kunknown(const struct vg_probe *p, int k, uint64_t *n,
		       uint64_t *kept);
/* The live block holding v in the second source's object map, else in
 * the kernel tier's (block_names.c): true and *out, false when none holds
 * it (or there is no map). After vg_probe_blocks_freeze (the maps change
 * no more: the final report), from a sorted copy made at the first ask. */
bool vg_probe_block(struct vg_probe *p, uint64_t v,
		    struct vg_probe_block *out);
void vg_probe_blocks_freeze(struct vg_probe *p);
/* Does an object map file the block event allocates, so that
 * vg_probe_block names it with its length and event? */
bool vg_probe_files_blocks(const struct vg_probe *p, int event);
/* The live view: from now on the kernel tier counts each transition it
 * takes; vg_probe_trans_hits says how often it took transition i
 * (numbered across the spec, property 0's first; 0 past
 * VG_KMAX_TRANS_HITS). */
void vg_probe_count_trans(struct vg_probe *p);

/* The watched_pages filter of calls checked against watched blocks
 * (bpf/callacc.bpf.h): page = address >> 12 holds one more watched block
 * (delta 1), or one less (-1); every call of a block counted must be
 * matched by its uncount. vg_probe_pages_all lets every call through
 * from now on (a block too large to count). */
void vg_probe_page_count(struct vg_probe *p, uint64_t page, int delta);
void vg_probe_pages_all(struct vg_probe *p);
/* No hold for VG_EVF_HOLD events while arming would be refused, as long
 * as the probes have sent no more VG_EVF_UNWATCH events than `releases`
 * (UINT64_MAX: hold always); the in-process tier's, as long as it has
 * sent no more than `inproc_releases` (each tier counts its own: a
 * release the other saw does not reach its holds, and a slice then armed
 * late is inconclusive, never wrong). */
void vg_probe_holds_futile(struct vg_probe *p, uint64_t releases,
			   uint64_t inproc_releases);
/* addr is (or no longer is) an armed breakpoint's: an event naming it may
 * free a register (VG_RF_RELEASE) */
void vg_probe_armed_addr(struct vg_probe *p, uint64_t addr, bool on);
/* What the records handled so far asked for while their threads wait
 * is done (watchpoints armed, probes attached): the in-process tier's
 * waiting threads go on. (The probes' holds stop the process instead:
 * session/hold.c sends their SIGCONT.) */
void vg_probe_holds_done(struct vg_probe *p);
uint64_t vg_probe_trans_hits(const struct vg_probe *p, int i);

/* Visit the kernel tier's slice table (end-of-run verdicts). kprop is the
 * index of the property among kernel-tier ones; vg_probe_kprop_of maps it
 * back to the spec's property index. */
typedef void (*vg_kslice_cb)(void *ctx, int prop, const uint64_t *key,
			     int state, const int64_t *vars);
int vg_probe_foreach_kslice(const struct vg_probe *p, vg_kslice_cb cb,
			    void *ctx);

/* vigil watch (probe/ktier_procs.c): kernel-tier slices keyed by process
 * too; each live one with its process; and the slices of a process that
 * ended made to match nothing (they stay counted in --max-slices). */
void vg_probe_kslices_by_process(struct vg_probe *p, bool on);
typedef void (*vg_kslice_proc_cb)(void *ctx, pid_t tgid, int prop,
				  const uint64_t *key, int state,
				  const int64_t *vars);
int vg_probe_foreach_kslice_proc(const struct vg_probe *p,
				 vg_kslice_proc_cb cb, void *ctx);
void vg_probe_forget_kslices(struct vg_probe *p, pid_t tgid);
int vg_probe_kprop_of(const struct vg_probe *p, int kprop);
/* The states of kernel-tier property prop (spec index) whose entry stops
 * the thread in the probe, changed while the probes run (`vigil break`;
 * probe_live.c). */
int vg_probe_set_stop_mask(struct vg_probe *p, int prop, uint32_t mask,
			   struct vg_err *e);
/* Whether event's probe holds its thread until vigil has handled its
 * record (VG_EVF_HOLD), changed while the probes run: a live session's
 * user-tier stops (probe_live.c). Off leaves the plan's own holds. */
int vg_probe_set_event_hold(struct vg_probe *p, int event, bool on,
			    struct vg_err *e);
/* Uprobe i: the file and offset it traps at (a uretprobe traps at the
 * function's entry too). 1, 0 when i is not a uprobe (or one whose link
 * an unload closed, probe_unload.c), -1 past the end. */
int vg_probe_site(const struct vg_probe *p, int i, const char **path,
		  uint64_t *offset, bool *retprobe);

/* A kernel-tier stop at an entry sent thread tid back to its call
 * (rewind.c): true, and in *bp the address of the probe the call leads
 * to, where the gdb hand-off steps it. */
bool vg_probe_rewound(const struct vg_probe *p, pid_t tid, uint64_t *bp);

/* `vigil unload` of a property the run started with (probe_unload.c):
 * a kernel-tier property's transitions and reactions are emptied in its
 * rows of the kernel tables (its slices stay in the slice table and no
 * longer change); an event no remaining property reacts to becomes idle
 * (counted, nothing sent, nothing stepped), and a uprobe group whose
 * sites are all idle is detached. Probes other properties use are not
 * touched. vg_probe_enable_prop undoes it (a restore of a checkpoint taken
 * before the unload). */
int vg_probe_disable_prop(struct vg_probe *p, int prop, struct vg_err *e);
int vg_probe_enable_prop(struct vg_probe *p, int prop, struct vg_err *e);
bool vg_probe_prop_disabled(const struct vg_probe *p, int prop);
/* Uprobe sites still attached whose event is idle: they share a
 * multi-uprobe link with sites still needed (the status says so). */
int vg_probe_idle_sites(const struct vg_probe *p);

#endif
