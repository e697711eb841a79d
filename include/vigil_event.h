/* The records the BPF programs write to the ring buffer, and the tables the
 * user side writes into BPF maps to configure them. One definition, included
 * by bpf/vigil.bpf.c and by user/probe/.
 *
 * Two tiers (docs/INTERNALS.md):
 *  - user tier: the probe sends every event (VG_REC_EVENT) and the user
 *    monitor evaluates the automaton;
 *  - kernel tier: the probe evaluates the automaton itself and sends only
 *    what the user side must see (VG_REC_KSTEP): state changes, states with
 *    reactions, verdicts.
 */
#ifndef VIGIL_EVENT_H
#define VIGIL_EVENT_H

#include "vigil_code.h"

#define VG_MAX_EVENTS 256	/* distinct events (probes) in one run */
#define VG_NARGS 6		/* integer argument registers, x86-64 SysV */
#define VG_MAX_SYSCALL 512	/* system call numbers below this */

/* kernel tier bounds; a property that needs more runs in the user tier */
#define VG_KMAX_PROPS 8		/* kernel-tier properties in one run */
#define VG_KMAX_PARAMS 2	/* slice parameters */
#define VG_KMAX_VARS 8		/* int/bool variables per slice */
#define VG_KMAX_STATES 32	/* states per property (bit masks are u32) */
#define VG_KMAX_TRANS 4		/* transitions per (property, state, event) */
#define VG_KMAX_PROG 64		/* instructions per guard or update */
#define VG_KMAX_CODE 4096	/* instructions in all kernel-tier code */
#define VG_KMAX_EV_PROPS 4	/* kernel-tier properties one event feeds */
#define VG_KMAX_BINDINGS 32	/* distinct events of one property */
#define VG_KMAX_TRANS_HITS 1024	/* transitions of a spec the view counts */
#define VG_KTRANS_INDEX(kprop, state, binding) \
	((((kprop) * VG_KMAX_STATES + (state)) * VG_KMAX_BINDINGS + (binding)) & \
	 (VG_KMAX_PROPS * VG_KMAX_STATES * VG_KMAX_BINDINGS - 1))

enum vg_rec_kind {
	VG_REC_EVENT = 1,	/* one event, for the user tier */
	VG_REC_KSTEP = 2,	/* a kernel-tier transition worth reporting */
	VG_REC_KFULL = 3,	/* kernel tier: slice table full, slice refused */
	VG_REC_KBUSY = 4,	/* kernel tier: slice lock not acquired in time */
	VG_REC_PROC = 5,	/* the target forked a process or exec'd */
	VG_REC_STACK = 6,	/* a user stack the stack map had no room for */
};

/* flags of a record */
#define VG_RF_STOPPED 0x1	/* the probe sent SIGSTOP to the process */
#define VG_RF_VERDICT 0x2	/* entered a violation state */
#define VG_RF_ARMSTOP 0x8	/* the probe stopped the process and user
				 * space resumes it once it has handled the
				 * record: --dynamic attaches the probes the
				 * event may need, a transition arms its
				 * watchpoints (VG_EVF_HOLD), or a watchpoint
				 * hit may stop it (VG_WPF_STOP) */
#define VG_RF_CKPT 0x4		/* stopped so that user space checkpoints the
				 * target exactly at this event */
#define VG_RF_FOLLOWED 0x10	/* VG_PROC_FORK: the child is followed */
#define VG_RF_FORKSTOP 0x20	/* VG_PROC_FORK: the child is stopped until
				 * its probes are attached (VG_FOLLOW_HELD);
				 * VG_PROC_EXEC under vigil watch: the process
				 * that exec'd the watched program, likewise */
#define VG_RF_RELEASE 0x400	/* a VG_EVF_UNWATCH event that names an
				 * armed breakpoint's address: counted in
				 * release_seq (bpf/vigil.bpf.c) */
#define VG_RF_STEPHIT 0x40	/* a watchpoint hit reported at an
				 * instruction a uprobe single-steps out of
				 * line: real only if that instruction
				 * touched the bytes, which cannot be told
				 * from QEMU TCG's stale report of an
				 * earlier hit (bpf/vigil/watch.bpf.c) */
#define VG_RF_NOVALUE 0x80	/* a watchpoint hit on a block the program
				 * was handed again: its value not read
				 * (bpf/vigil/watch.bpf.c) */
#define VG_RF_INPROC 0x800	/* from the in-process tier (user/fast/):
				 * with VG_RF_STOPPED, the thread stopped
				 * before the function's first instruction */
#define VG_RF_REWOUND 0x200	/* with VG_RF_STOPPED at an entry probe: the
				 * thread was sent back to the call, nothing
				 * of the function ran (bpf/rewind.bpf.h) */

/* values of the `followed` map (bpf/lifecycle.bpf.h) */
#define VG_FOLLOW_ON 1		/* followed, its probes attached */
#define VG_FOLLOW_HELD 2	/* stopped at its fork: its probes are not
				 * attached yet, and user space owes it a
				 * SIGCONT */

struct vg_rec_hdr {
	__u16 kind;		/* enum vg_rec_kind */
	__u16 flags;		/* VG_RF_* */
	__u32 event;		/* event index in the spec */
	__u32 pid, tid;
	__u64 time_ns;		/* bpf_ktime_get_ns: CLOCK_MONOTONIC */
};

/* A VG_REC_EVENT record in the ring buffer stops after the slots its event
 * uses (vg_ev_conf.rec_slots: one of the sizes below), because what the
 * target pays per event grows with the bytes it writes into a ring the
 * consumer reads on another CPU; the reader zero-fills the rest. The
 * verifier wants a constant size at each reservation, hence a few sizes:
 * 4 slots make 64 bytes with the ring's own 8-byte header (one cache
 * line), 9 reach the return value, VG_NSLOTS everything. */
struct vg_rec_event {
	struct vg_rec_hdr h;
	__u64 slot[VG_NSLOTS];	/* arguments, ret, captures, evidence
				 * (include/vigil_code.h) */
};

#define VG_REC_SLOTS_S 4
#define VG_REC_SLOTS_M (VG_SLOT_RET + 1)
#define VG_REC_EVENT_BYTES(nslots) (sizeof(struct vg_rec_hdr) + 8 * (nslots))

/* the size that holds slots 0..used-1 */
static inline __u8 vg_rec_slots_for(__u32 used)
{
	return used <= VG_REC_SLOTS_S ? VG_REC_SLOTS_S
	       : used <= VG_REC_SLOTS_M ? VG_REC_SLOTS_M : VG_NSLOTS;
}

/* An event with C strings (str(p)): the record above, always with all its
 * slots, then the strings, each NUL-terminated and cut at VG_STR_MAX - 1
 * bytes. */
struct vg_rec_event_str {
	struct vg_rec_event ev;
	char str[VG_MAX_STRS][VG_STR_MAX];
};

/* VG_REC_PROC: what the target's process did (bpf/lifecycle.bpf.h) */
enum vg_proc_what { VG_PROC_FORK = 1, VG_PROC_EXEC = 2, VG_PROC_EXIT = 3 };
struct vg_rec_proc {
	struct vg_rec_hdr h;	/* event: enum vg_proc_what */
	__u32 child;		/* VG_PROC_FORK: the new process;
				 * VG_PROC_EXIT: the followed process that
				 * ended (its probes can go) */
	__u32 dev;		/* VG_PROC_EXEC: the program's file, as the
				 * kernel encodes dev_t (major << 20 | minor);
				 * VG_PROC_EXIT: the wait status */
	__u64 ino;
	/* VG_PROC_EXEC: the new program's mm->start_code, the lowest address
	 * of its executable segments: with the file's program headers, its
	 * load bias, known even when the process is gone by the time vigil
	 * reads its events and names their pointers (session/symval.c) */
	__u64 start_code;
	__u64 interp_base;	/* VG_PROC_EXEC: AT_BASE, where its dynamic
				 * loader went (0: none), for the same */
	char path[256];		/* VG_PROC_EXEC: the program, as exec'd */
};

struct vg_rec_kstep {
	struct vg_rec_hdr h;
	__u16 prop;		/* kernel-tier property index (vg_kprop) */
	__u16 from, to;		/* states */
	__u16 pad;
	__u64 key[VG_KMAX_PARAMS];	/* slice parameter values */
	__s64 vars[VG_KMAX_VARS];	/* after the transition */
	__u64 slot[VG_NSLOTS];	/* the event, for the report */
};

/* --- configuration written by user space ------------------------------- */

/* per event: how the probe handles it */
#define VG_EVF_USER 0x1		/* send VG_REC_EVENT to the user tier */
#define VG_EVF_WAKE 0x2		/* wake the consumer at once: the event can
				 * lead a user-tier slice into a stop */
#define VG_EVF_STACK 0x4	/* capture the user stack (--stacks, or a
				 * `backtrace` reaction): its id in the
				 * stacks map goes in slot VG_SLOT_STACK */

#define VG_EVF_ARGS 0x8		/* place the arguments by arg[] (below), not
				 * integer register i in slot i */
#define VG_EVF_RETX 0x10	/* convert the return value by ret_conv */
#define VG_EVF_STRS 0x20	/* reads C strings: send struct
				 * vg_rec_event_str */
#define VG_EVF_HOLD 0x40	/* may take a slice into a state that arms a
				 * watchpoint: stop the thread until it is
				 * armed in every thread (VG_RF_ARMSTOP) */
#define VG_EVF_ENTER 0x80	/* entry of a function an `outside` clause
				 * names: the thread is inside it (the
				 * `inside` map, bpf/vigil.bpf.c) */
#define VG_EVF_LEAVE 0x100	/* its return: one level less */
#define VG_EVF_UNWATCH 0x200	/* may take a slice out of a state that
				 * watches (or move its watch): counted in
				 * release_seq, which voids holds_futile */
/* valgrind's client requests (bpf/vigil/creq.bpf.c, include/vigil_creq.h):
 * which the probe sends on */
#define VG_EVF_CREQ_LEAKS 0x10000	/* the leak requests, holding the
					 * process (--leak-check) */
#define VG_EVF_CREQ_ERRS 0x20000	/* those that silence errors */

/* For VG_EVF_STACK events, slot VG_SLOT_STACK carries the user stack's id
 * (negative: none) and, at entry probes, VG_SLOT_CALLER the return address
 * on top of the stack (the frame-pointer walk cannot see that frame). */
#define VG_STACK_DEPTH 32	/* frames kept per stack */

/* A stack id is the stack map's own (a bucket index, below its size) or,
 * for a stack whose bucket another stack holds or that came once the map
 * was full, VG_STACK_SPILLED + n: its frames went to user space in a
 * VG_REC_STACK record, ahead of every record that names it
 * (bpf/stacks.bpf.h). */
#define VG_STACK_SPILLED (1u << 24)
#define VG_STACK_MAX_SPILLED 65536
/* what bpf_get_stack writes per frame with BPF_F_USER_BUILD_ID: struct
 * bpf_stack_build_id, which only the BPF side's vmlinux.h and the user
 * side's linux/bpf.h define */
#define VG_STACK_FRAME_BYTES 32

struct vg_rec_stack {
	struct vg_rec_hdr h;
	__u32 id;		/* VG_STACK_SPILLED + n */
	__u32 nbytes;		/* of frames filled */
	__u8 frames[VG_STACK_DEPTH * VG_STACK_FRAME_BYTES];
};

/* Where positional parameter i is at the function's entry, and how its
 * bits become a 64-bit value, from the function's DWARF types and the
 * x86-64 ABI (user/probe/args.c). Without VG_EVF_ARGS the probe puts
 * integer register i in slot i, which is right for 8-byte integers and
 * pointers in order. */
enum vg_arg_where { VG_ARG_REG, VG_ARG_STACK, VG_ARG_NONE };
enum vg_arg_conv {
	VG_CONV_RAW,		/* 8 bytes, as they are */
	VG_CONV_SEXT,		/* signed integer of `size` bytes */
	VG_CONV_ZEXT,		/* unsigned integer of `size` bytes */
	VG_CONV_BOOL,		/* _Bool: the low byte, 0 or 1 */
};
/* The bits of an argument or return value as its C type makes them: an
 * `int` in %edi leaves garbage in the upper half of %rdi. Both sides of
 * a call probe use it: bpf/vigil.bpf.h and the in-process agent. */
static inline __u64 vg_convert(__u64 v, __u8 conv, __u8 size)
{
	__u32 sh = size >= 1 && size < 8 ? 64 - 8 * size : 0;

	if (conv == VG_CONV_SEXT)
		return (__u64)((__s64)(v << sh) >> sh);
	if (conv == VG_CONV_ZEXT)
		return (v << sh) >> sh;
	if (conv == VG_CONV_BOOL)
		return (v & 0xff) != 0;
	return v;
}

struct vg_arg_plan {
	__u8 where;		/* enum vg_arg_where */
	__u8 reg;		/* VG_ARG_REG: integer argument register 0..5 */
	__u8 conv, size;	/* enum vg_arg_conv, bytes */
	__s32 stack_off;	/* VG_ARG_STACK: from %rsp at entry */
};

/* A value the probe reads from target memory (`q->count`, `p->a->b`, `*p`):
 * start at slot src (a pointer), then for each step but the last load the
 * pointer at addr + off[i]; the value is `size` bytes at addr + off[last],
 * sign-extended when is_signed. A read that faults gives 0 and counts
 * VG_CNT_CAPFAULT. Offsets come from DWARF (user/probe/capture.c). */
#define VG_CAP_STEPS 3
enum vg_cap_str {
	VG_CAPS_NONE,		/* a value of `size` bytes */
	VG_CAPS_AT,		/* the C string at addr + off[last] (str(p),
				 * a char array member) */
	VG_CAPS_PTR,		/* the C string the pointer at addr + off[last]
				 * points to (a char * member) */
};
struct vg_cap_plan {
	__u8 src, nsteps, size, is_signed;
	__u32 off[VG_CAP_STEPS];
	__u8 str;		/* enum vg_cap_str */
	__u8 str_idx;		/* its buffer in struct vg_rec_event_str */
	__u8 pad[2];
};

struct vg_ev_conf {
	__u32 flags;
	__u32 ncaps;		/* captures, into VG_SLOT_CAP0.. */
	struct vg_cap_plan cap[VG_MAX_CAPS];
	struct vg_arg_plan arg[VG_MAX_FIELDS];	/* with VG_EVF_ARGS */
	__u8 ret_conv, ret_size;		/* with VG_EVF_RETX */
	__u8 rec_slots;		/* slots its VG_REC_EVENT carries (above) */
	__u8 inside;		/* VG_EVF_ENTER/LEAVE: which depth of
				 * struct vg_inside it counts */
	__u16 outside;		/* `outside f, g`: the depths (bits) that,
				 * any non-zero, make a call no event */
	__u16 rel_slots;	/* VG_EVF_UNWATCH: the slots (bits) where it
				 * names a watching slice's block; an armed
				 * address there is released
				 * (bpf/released.bpf.h) */
	__u32 nkprops;		/* kernel-tier properties fed by this event */
	__u8 kprop[VG_KMAX_EV_PROPS];
	/* for each of them, the slot binding slice parameter 0 and 1 */
	__u8 kslot[VG_KMAX_EV_PROPS][VG_KMAX_PARAMS];
	/* and the index of this event among the property's bindings */
	__u8 kbind[VG_KMAX_EV_PROPS];
	/* and 1 + the one state the event's transitions leave when each
	 * has a guard that reads no slice variable, else 0: when none of
	 * those guards holds, the in-process step looks no slice up
	 * (user/plan/plan_ktier.c, inproc/kstep.c) */
	__u8 kpre[VG_KMAX_EV_PROPS];
	/* --dynamic: the events (bits, below 64) this one may lead a slice
	 * to need; when one is not in armed_mask (bpf/vigil.bpf.c), the
	 * probe stops the target until user space has attached it */
	__u64 arms;
	/* a call checked against watched blocks (user/watchset/callacc.c):
	 * the slots of up to 2 buffers and of their lengths (VG_RNG_BYTE:
	 * one byte, a string's first); the probe sends the call only when
	 * one touches a page of the watched_pages map
	 * (bpf/callacc.bpf.h) */
	__u8 nrng;
	__u8 rng_ptr[2], rng_len[2];
	__u8 pad3[3];
};
#define VG_RNG_BYTE 0xff

/* The calls' page filter (bpf/callacc.bpf.h, watched_pages): a count per
 * hash of a page number */
#define VG_PAGE_SLOTS 65536	/* a power of two */
static inline __u32 vg_page_slot(__u64 page)
{
	return (__u32)((page * 0x9e3779b97f4a7c15ull) >> 48) &
	       (VG_PAGE_SLOTS - 1);
}

/* One hardware breakpoint (`write x`, `read x`, `access x`), in the
 * watch_ev map by its address: the event it reports, how many bytes it
 * covers and how they become `value` (enum vg_arg_conv). */
/* the armed_addrs map's values (bpf/callacc.bpf.h): armed by user space,
 * then named by a VG_EVF_UNWATCH event (the block given out again) */
enum { VG_ARMED_ON = 1, VG_ARMED_RELEASED = 2 };
#define VG_WPF_STOP 0x1		/* a hit may take a slice into a state that
				 * stops the process: stop the writing
				 * thread right there and let user space
				 * decide (VG_RF_ARMSTOP) */
struct vg_wp_conf {
	__u32 event;
	__u8 len, conv, flags;
	__u8 pad;
	__u16 outside;		/* as vg_ev_conf's: a hit by a thread inside
				 * one of those functions is not an event */
	__u16 pad2;
	__u32 pad3;
	__u64 base;		/* the slice's watched address (`*p`: p), its
				 * first breakpoint's: once an event has
				 * named it (VG_RF_RELEASE, the block handed
				 * out again), a hit stops nothing until
				 * user space arms it again (bpf/released.bpf.h) */
};

/* Per thread (the `inside` map, bpf/vigil.bpf.c), how deep it is in each
 * function an `outside` clause names: depth[i] for the one whose events
 * have inside == i; total is their sum (0: the entry goes). */
struct vg_inside {
	__u32 total;
	__u16 depth[VG_MAX_INSIDE];
};

/* per kernel-tier property */
struct vg_kprop {
	__u32 nparams, nvars;
	__u32 violation_mask;	/* states of kind violation */
	__u32 stop_mask;	/* states whose entry stops the process */
	__u32 notify_mask;	/* states with a reaction: report entering/leaving */
	__u32 ckpt_mask;	/* states whose entry is checkpointed (stop, at
				 * most once per ckpt_next_ns, bpf/kstep.bpf.h) */
	__u32 timed_mask;	/* states with a timeout (bpf/ktimer.bpf.h) */
	__u32 deadline_var;	/* with timed_mask: the hidden "(deadline)" */
	/* bit b: binding b creates the values it binds, and may start a
	 * slice's next life after a violation (vg_binding.creates) */
	__u32 create_mask;
	__u32 pad;
	__s64 init_vars[VG_KMAX_VARS];
};

/* the transitions of one (property, state, event), in first-match order,
 * at VG_KTRANS_INDEX in the ktrans array */
/* The fast form of the commonest guards and updates, `a OP b` and
 * `v = a OP b`, evaluated without the interpreter loop. ktier.c derives it
 * from the bytecode by pattern, so it computes exactly what the bytecode
 * would. */
enum vg_kopnd_kind { VG_KO_IMM, VG_KO_FIELD, VG_KO_VAR, VG_KO_PARAM };

struct vg_kopnd {
	__u8 kind;		/* enum vg_kopnd_kind */
	__u8 idx;
	__u8 pad[6];
	__s64 imm;
};

struct vg_kexpr {
	__u8 op;		/* a binary VG_OP_*, or VG_OP_END: just a */
	__u8 dst;		/* updates: the variable assigned */
	__u8 pad[6];
	struct vg_kopnd a, b;
};

#define VG_KFAST_STMTS 2

struct vg_ktrans {
	__u16 n;
	__u16 moves;		/* some transition changes state or variables */
	struct {
		__u16 guard_off, guard_len;	/* into the kcode map */
		__u16 upd_off, upd_len;
		__u32 to;
		/* fast forms: guard_fast 1 when `guard` replaces the guard
		 * code; upd_fast N when upd[0..N) replace the update code */
		__u8 guard_fast, upd_fast;
		/* the transition's index among all of the spec's, property
		 * 0's first: the live view counts edges by it (ktrans_hits) */
		__u16 spec_index;
		struct vg_kexpr guard;
		struct vg_kexpr upd[VG_KFAST_STMTS];
	} t[VG_KMAX_TRANS];
};

/* The kernel-tier slice table: an array used as an open-addressed hash
 * table (a home slot, then linear probing: vg_kslot_probe, VG_KPROBES
 * slots at most), because a BPF hash map lookup was the largest part of
 * the cost of an event that changes nothing. Slots are claimed, never
 * freed, so an empty slot on the probe path means "no such slice". Both
 * sides insert (the probe; user space when it restores a monitor state),
 * so both walk vg_kslot_probe's path.
 *
 * The path must be long enough that --max-slices N really holds N
 * slices: the table has at least 2N slots, and at half full, linear
 * probing's longest runs outgrow 8 slots (8 refused ~200 of 15000 heap
 * blocks with --max-slices 16000, and 2 now and then at the default).
 * Only a lookup that meets a cluster walks it, so the length costs a
 * quiet event nothing. */
#define VG_KPROBES 64

enum vg_kslot_use {
	VG_KSLOT_EMPTY = 0,
	VG_KSLOT_CLAIMED,	/* its key is being written */
	VG_KSLOT_READY,
};

struct vg_kslot {
	__u32 lock;		/* 0 free, 1 held; see bpf/kstep.bpf.h */
	__u32 use;		/* enum vg_kslot_use */
	__u32 prop;
	__u16 state;
	__u16 tflags;		/* VG_KSLOT_TLISTED (include/vigil_ktimer.h) */
	/* vigil watch (kslot_by_tgid): the process the slice is of, part of
	 * its key; 0 otherwise, and for a process that ended (a slot that
	 * matches nothing any more) */
	__u32 tgid;
	__u32 pad2;
	__u64 key[VG_KMAX_PARAMS];
	__s64 vars[VG_KMAX_VARS];
};

/* The first key word as hashed: with slices keyed by process (vigil
 * watch), the process goes into it, so that one object address in twenty
 * processes does not pile up on one probe path. */
static inline __u64 vg_kslot_key0(__u64 a, __u32 tgid)
{
	return a ^ ((__u64)tgid * 0xc2b2ae3d27d4eb4full);
}

/* Slice addresses are 16-byte aligned and often in arithmetic progression
 * (a heap's blocks), small integers dense, and the same key is a slice of
 * several properties (every block, in each memory property): the property
 * goes into every bit, and splitmix64's finalizer spreads the rest, so
 * that such keys do not pile up on one probe path. */
static inline __u32 vg_kslot_mix(__u32 salt, __u64 a, __u64 b)
{
	__u64 h = a ^ (b * 0x9e3779b97f4a7c15ull) ^
		  (((__u64)salt + 1) * 0xd6e8feb86659fd93ull);

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return (__u32)((h ^ (h >> 31)) >> 32);
}

static inline __u32 vg_kslot_hash(__u32 prop, __u64 a, __u64 b)
{
	return vg_kslot_mix(prop, a, b);
}

/* One event steps every property of its key at once (a malloc: the block's
 * slice in each memory property), and in a table of tens of megabytes
 * each slot is a TLB and a cache miss. So a slice's first slot is its
 * home: the key's group of VG_KSLOT_GROUP neighbouring slots, one per
 * property (its low bits), all in one page, lines the hardware fetches
 * together. A home taken by another key's slice sends the search on
 * along the hash above: linear probing from a group alone would make
 * runs of one key's slices, clusters that overflow the probe bound when
 * the table fills (a simulation at half full: 20 slices in 32,768
 * refused where the spread path refuses none; allocs_bench with
 * --max-slices at the table's half refuses as many slices either way).
 * A property past the group's size has groups of its own (prop /
 * VG_KSLOT_GROUP hashed in).
 * allocs_bench under five memory specs: docs/PERFORMANCE.md. */
#define VG_KSLOT_GROUP 8u
static inline __u32 vg_kslot_home(__u32 prop, __u64 a, __u64 b)
{
	/* (a salt no property's hash has: the path's two parts apart) */
	return (vg_kslot_mix(0x80000000u | (prop / VG_KSLOT_GROUP), a, b) &
		~(VG_KSLOT_GROUP - 1)) | (prop & (VG_KSLOT_GROUP - 1));
}

/* The i-th slot of a slice's probe path (i < VG_KPROBES), before the
 * table's mask: its home, then linear from its hash. Every searcher of
 * the table walks this one path: the probes (bpf/kstep.bpf.h), the agent
 * (inproc/kstep.c) and vigil's restore (user/probe/probe.c). */
static inline __u32 vg_kslot_probe(__u32 home, __u32 hash, __u32 i)
{
	return i ? hash + i - 1 : home;
}

/* per-CPU counters the user side sums for the stats line */
enum vg_counter {
	VG_CNT_RB_LOST,		/* ring-buffer reservation failed */
	VG_CNT_KFULL,		/* kernel slice table full */
	VG_CNT_KBUSY,		/* slice lock contention beyond the bound */
	VG_CNT_KERR,		/* bad kernel-tier code (should never happen) */
	VG_CNT_CAPFAULT,	/* a capture's memory read faulted */
	VG_CNT_UNFOLLOWED,	/* --follow-fork: a child not followed, or
				 * whose fork record was lost (its probes are
				 * not attached) */
	VG_CNT_STACK_SPILLED,	/* a stack sent in a VG_REC_STACK record */
	VG_CNT_STACK_LOST,	/* a stack neither kept nor sent: the spill
				 * table or the ring buffer was full */
	VG_CNT__COUNT
};

#endif
