/* The plan of a run: everything it will put in the kernel, decided from the
 * compiled spec and the binaries before anything is loaded (user/plan/).
 *
 * vg_plan_build runs the deciders as passes over one object: each
 * property's tier (plan_ktier.c's eligibility), the states whose entry
 * stops the target (act/scenario.c), the events whose user stack is taken
 * (a `backtrace` reaction, --stacks), the events that hold a slice that
 * arms a watchpoint (plan_holds.c), --dynamic's arming sets
 * (plan_dynamic.c); then each event's flags as the probes see them
 * (VG_EVF_*), and the probe sites: where each function probe goes (file,
 * offset after placement, entry or return), which BPF program runs there;
 * then what each event's probe reads (its arguments' locations and types,
 * its memory reads: the event table the probes get, from DWARF), the
 * globals' watchpoints and where each per-slice watch finds its memory
 * (plan_reads.c). The session hands the plan to user/probe/, which
 * installs exactly its sites and event table; `vigil lint --binary`
 * prints it.
 *
 * Building a plan needs no privilege: it reads ELF and DWARF only. */
#ifndef VIGIL_PLAN_H
#define VIGIL_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "act/on_violation.h"
#include "plan/tier.h"
#include "plan/watch_plan.h"
#include "spec/spec.h"
#include "vigil_code.h"
#include "vigil_event.h"

struct vg_plan_opts {
	const char *binary;		/* the program; NULL: no sites */
	const char *const *libs;	/* --lib (and an attached process's
					 * mapped libraries) */
	size_t nlibs;
	enum vg_tier tier;
	enum vg_on_violation on_violation;
	bool stacks;			/* --stacks */
	bool dynamic;			/* --dynamic */
	bool record;			/* --record: every event to user space */
	bool follow_forks;		/* every property in the user tier */
	/* the argument name warnings (a spec name that is not the
	 * function's own), with the spec line; NULL: none. all_names: every
	 * differing name, not only the likely mistakes (lint
	 * --all-warnings) */
	FILE *warn;
	bool all_names;
	bool watch;			/* (because of vigil watch, says why) */
	/* --leak-check (leaks/leaks_plan.c decides it); NULL: none */
	const struct vg_plan_leaks *leak_check;
	/* What the plan must know of the machine the run installs it on,
	 * found out by the caller (user/probe/), which the plan does not
	 * ask itself. no_debug_regs: this machine's debug registers do not
	 * fire (probe/debugregs.h): no watch event can be seen; a thread is
	 * held only for the page filter of calls into watched blocks
	 * (plan.c, pass_blind); no_debug_regs_why: how the caller found out,
	 * for the line that says so (probe/debugregs.h's VG_NO_REGS_WHY;
	 * NULL: not said). no_ktimer: this kernel's timer cannot stop a
	 * thread (probe/features.h's vg_feat_ktimer false): timed
	 * properties run in the user tier. */
	bool no_debug_regs;
	const char *no_debug_regs_why;
	bool no_ktimer;
	/* The in-process tier (plan_fast.c): fast_hot puts the hot library
	 * functions (memory, strings, locks) in it; fast_funcs names more
	 * (--fast, glob patterns); no_fast_why: why the run can have none
	 * (fork snapshots, gdb, vigil watch ...), said by lint; NULL: it can. */
	bool fast_hot;
	bool fast_off;		/* --no-fast, VIGIL_FAST=off: not even the
				 * functions a spec's `fast` line names */
	const char *const *fast_funcs;
	size_t nfast_funcs;
	const char *no_fast_why;
	/* why a user-tier property's events stay on uprobes (--interactive:
	 * its stops hold the thread at the event, which only a uprobe can);
	 * NULL: they may go in too */
	const char *fast_user_why;
	/* the in-process tier, when it takes every function of a property
	 * with memory predicates, gives it the kernel tier with the agent's
	 * object map (plan_memfast.c): a run's and lint's plan
	 * (vg_plan_fast_apply), not a `vigil load` unit's, which patches
	 * nothing */
	bool fast_objmap;
	/* where the in-process tier cannot be had (--no-fast), the kernel
	 * tier in the BPF probes may keep an object map of its own
	 * (bpf/kmem.bpf.h) for such a property: a run's and lint's plan
	 * (vg_plan_fast_apply); not for a process attached to (attached:
	 * its heap so far unseen), vigil watch, or followed forks */
	bool ktier_objmap;
	bool attached;
	/* --max-objects: the live blocks the in-process agent's object map
	 * holds (0: VG_PLAN_OBJECTS) */
	size_t max_objects;
};
#define VG_PLAN_OBJECTS 262144	/* objmap.h's VG_OBJMAP_DEFAULT_MAX */

/* What --leak-check asks of the plan, per event: whether its probe holds
 * the target for the scan, whether it takes its user stack (for the loss
 * records); hold_prop: the property that holds, kept in the user tier */
struct vg_plan_leaks {
	int hold_prop;
	bool *holds;
	bool *stacks;
};

/* The BPF program a site runs (bpf/vigil/probes.bpf.c) */
enum vg_plan_prog {
	VG_PROG_ENTRY,		/* vg_entry, or vg_entry_k with a kernel tier */
	VG_PROG_ENTRY_S,	/* reads C strings: the sleepable build */
	VG_PROG_STASH,		/* `after f(args)`: the entry half */
	VG_PROG_RETURN,		/* vg_return / vg_return_k */
	VG_PROG_RETURN_S,
	VG_PROG_CREQ,		/* vg_creq: a valgrind client request's xchg
				 * (plan_creq.c) */
};

struct vg_plan_site {
	int event;
	enum vg_plan_prog prog;
	bool retprobe;
	char path[4096];	/* the file the function is in */
	char sym[256];		/* its symbol (a C++ name's mangled one); ""
				 * when DWARF alone had the function */
	uint64_t func;		/* the function's file offset */
	uint64_t size;		/* its size (0: unknown) */
	uint64_t offset;	/* the probe's: after placement for entries */
	bool emulated;		/* the kernel emulates the probed instruction */
	int skipped;		/* instructions placement moved past */
	char insn[32];		/* the instruction probed, e.g. "push %rbp" */
	bool norewind;		/* a stop here is not sent back to the call:
				 * the skipped writes would not redo */
	bool jmp;		/* the probe is on a direct jmp (tail call):
				 * a stop lands at offset + jmp_to */
	int64_t jmp_to;
	bool dormant;		/* --dynamic: detached until a slice needs it */
	/* the in-process tier (plan_fast.c): the function is patched in
	 * the target and this site gets no uprobe; fast_why: why a hot
	 * function keeps its uprobe ("" when it is not hot) */
	bool fast;
	uint64_t patch;		/* where the patch goes (file offset): func,
				 * or past what placement moved over */
	const char *fast_by;	/* who asked: "hot", "--fast", ... */
	char fast_why[192];
	/* the function starts with a VEX or EVEX instruction: a uprobe
	 * must not go there (plan.c); only the in-process tier, which
	 * never single-steps it, may take it (plan_unseen.c) */
	bool vector_entry;
};

struct vg_plan_prop {
	bool kernel;
	/* kernel tier in the in-process agent, with its object map: every
	 * function its events use is patched (plan_memfast.c) */
	bool inproc_mem;
	/* kernel tier in the BPF probes, with their object map
	 * (plan_memfast.c, bpf/kmem.bpf.h) */
	bool bpf_mem;
	char why[256];		/* user tier: why not kernel; inproc_mem:
				 * what it is */
	uint32_t stop_mask;	/* states whose entry stops the target */
	/* what it cannot see on this machine (plan_unseen.c: a function
	 * no probe can take), "" when nothing: its verdicts are
	 * inconclusive at best, never accepting */
	char unseen[320];
	/* and one of those unseen calls could have taken a slice somewhere
	 * other than a violation, so a violation it reports may not be
	 * real; false when they only lead to violations (heap_overflow's
	 * memset): missing one misses a violation, it makes none up */
	bool unseen_doubts;
};

struct vg_plan_event {
	uint32_t flags;		/* the VG_EVF_* decided here: USER, WAKE,
				 * STACK, HOLD, ENTER, LEAVE */
	uint64_t arms;		/* --dynamic: the events it may make needed */
	uint16_t rel_slots;	/* VG_EVF_UNWATCH: vg_ev_conf's */
	/* with a binary: the event table's entry as the probes get it (the
	 * flags above and ARGS, RETX, STRS; where each argument is, the
	 * return value's conversion, the memory reads, the record's
	 * slots); the kernel tier adds its own fields at load */
	struct vg_ev_conf conf;
	/* what each read position is, for lint: "int in %edi" */
	char what[VG_SLOT_RET + 1][160];
};

/* A global's watchpoint (`write counter`; each location of a `change`):
 * armed in every thread once the program is loaded, at link_addr moved by
 * the program's load bias */
struct vg_plan_gwatch {
	int event, loc;
	char name[256];
	uint64_t link_addr;
	uint8_t len, conv;	/* 1, 2, 4 or 8 bytes; enum vg_arg_conv */
	bool read;		/* read or access: the rw debug register */
};

/* How a property finds one location a per-slice watch event watches: the
 * pointer (a slice parameter or variable), the members below it (from
 * the DWARF of the function that gives the slice the pointer), the
 * count of `@ n` */
enum vg_plan_count { VG_WCOUNT_ONE, VG_WCOUNT_CONST, VG_WCOUNT_PARAM, VG_WCOUNT_VAR };
struct vg_plan_wloc {
	int base;		/* slice parameter or variable index */
	bool base_var;
	enum vg_plan_count count_kind;
	int64_t count;		/* VG_WCOUNT_CONST: the count; else the index */
	struct vg_wp_type ty;
	int src_event;		/* the function event whose DWARF typed it;
				 * -1: untyped bytes */
};
struct vg_plan_swatch {
	int prop, event, nloc;	/* a user-tier property's watch event */
	struct vg_plan_wloc loc[VG_CHANGE_LOCS];
};

/* The kernel tier's tables (bpf/kstep.bpf.h), as its maps get them:
 * kernel property k is spec property kprop_map[k]; its code at its
 * offset in code[]; each (property, state, event)'s transitions at their
 * index in the ktrans map */
struct vg_plan_ktrans {
	uint32_t index;		/* VG_KTRANS_INDEX(k, state, binding) */
	struct vg_ktrans t;
};
struct vg_plan_ktables {
	int nkprops;
	int kprop_map[VG_KMAX_PROPS];
	struct vg_kprop kprops[VG_KMAX_PROPS];
	uint32_t code_base[VG_KMAX_PROPS];	/* where each one's code
						 * starts in code */
	struct vg_insn *code;
	uint32_t ncode;
	struct vg_plan_ktrans *trans;
	int ntrans;
};

struct vg_plan {
	const struct vg_spec *spec;
	int nprops, nevents;
	struct vg_plan_prop *props;	/* [nprops] */
	struct vg_plan_event *events;	/* [nevents] */
	bool any_kernel;		/* a property is in the kernel tier */
	/* the uprobes run the kernel-tier builds (vg_entry_k, vg_return_k,
	 * vg_kstep): a site the in-process tier does not take steps a
	 * kernel-tier property. Without one, the plain builds load in a
	 * third of the time (the agent steps the kernel tier in-process). */
	bool kernel_progs;
	uint64_t dormant;		/* --dynamic: entry events that start
					 * detached (bits below 64) */
	struct vg_plan_site *sites;	/* with a binary: every uprobe */
	int nsites;
	int nfast;			/* sites the in-process tier takes */
	/* a property is in the kernel tier in-process with the object map
	 * (its props[].inproc_mem): the agent keeps one, for om_objects
	 * live blocks */
	bool objmap_fast;
	/* a property is in the kernel tier in the BPF probes with the
	 * object map (its props[].bpf_mem): the probes keep one */
	bool objmap_bpf;
	/* a property with memory predicates neither of those maps serves:
	 * vigil's monitor evaluates it, on the user tier's map
	 * (user/objmap/), which the session then files at every allocation
	 * event */
	bool objmap_user;
	uint64_t om_objects;
	uint32_t fast_inside;		/* the `outside` depths it counts
					 * (bits of struct vg_inside) */
	/* tracepoints beyond the three always there (exit, fork, exec) */
	bool tp_signal, tp_syscalls;
	int nwatch_globals;		/* `write x` etc. on globals */
	/* with a binary: the globals' watchpoints, each per-slice watch */
	struct vg_plan_gwatch *gwatch;
	int ngwatch;
	struct vg_plan_swatch *swatch;
	int nswatch;
	int nwarnings;			/* argument name warnings given */
	struct vg_plan_dyn *dyn;	/* --dynamic's automaton analysis (the
					 * session takes it: vg_plan_take_dyn) */
	/* the kernel tier's tables; each event's conf gets its kernel-tier
	 * fields (which properties it feeds, their slots) */
	struct vg_plan_ktables kt;
	/* per-array views the deciders' callers want (same data as above) */
	bool *kernel;			/* [nprops] */
	uint32_t *stop_masks;		/* [nprops] */
	bool *stack_events;		/* [nevents] */
	bool *hold_events;		/* [nevents], NULL: none */
	bool *release_events;		/* VG_EVF_UNWATCH ones, likewise */
	uint64_t *arms;			/* [nevents], NULL without --dynamic */
	/* opts.no_debug_regs: the properties that use a watch event, which
	 * none can see (what they guard ends inconclusive), and how many */
	bool no_debug_regs;
	const char *no_debug_regs_why;	/* the caller's, as in the opts */
	bool *blind;			/* [nprops] */
	int nblind;
};

/* Build the plan; -1 with e set (a property that cannot have the tier
 * asked for, a function not found, an argument DWARF cannot place: exit
 * status 2). Frees nothing of spec, which must outlive the plan. */
struct vg_plan *vg_plan_build(const struct vg_spec *spec,
			      const struct vg_plan_opts *o, struct vg_err *e);
void vg_plan_free(struct vg_plan *p);

/* --dynamic: the analysis the plan made, for the session to run on (it
 * is made once); NULL without --dynamic. The plan no longer owns it. */
struct vg_plan_dyn *vg_plan_take_dyn(struct vg_plan *p);

/* plan_dynamic.c: --dynamic's arming analysis, from the automata (the
 * session attaches and detaches by it, dynamic/dynamic.c) */
struct vg_plan_dyn {
	uint64_t dynamic;	/* entry events whose probe may be detached
				 * (bits below 64); none is at the start */
	uint64_t *consume;	/* per property state, at state_off[prop] +
				 * state: the events it consumes */
	int *state_off;		/* [nprops] */
	uint64_t *arms;		/* [nevents]: the dynamic events each can
				 * make needed */
};
/* NULL when out of memory */
struct vg_plan_dyn *vg_plan_dynamic(const struct vg_spec *spec,
				    const bool *kernel);
void vg_plan_dyn_free(struct vg_plan_dyn *d);

/* plan_holds.c. Per event [spec->nevents]: whether it may take a
 * user-tier slice into a state that arms a watchpoint (its probe then
 * holds the thread until the watchpoint is armed: VG_EVF_HOLD). A
 * self-loop arms nothing new unless its update moves a watch (stores the
 * variable it points by or counts with), or the state has a `watch`
 * reaction. NULL when no event does, or out of memory (*oom set). */
bool *vg_plan_watch_holds(const struct vg_spec *spec, const bool *kernel,
			  bool *oom);
/* Per event: whether it may take a slice out of a state that watches, or
 * move its watch (VG_EVF_UNWATCH; see bpf/vigil.bpf.h's holds_futile).
 * NULL when none does, or out of memory (*oom set). */
bool *vg_plan_watch_releases(const struct vg_spec *spec, const bool *kernel,
			     uint16_t *slots, bool *oom);

/* The per-slice watch plan of property prop's event, or NULL */
const struct vg_plan_swatch *vg_plan_swatch_of(const struct vg_plan *p,
					       int prop, int event);

/* plan_reads.c, passes run by vg_plan_build once the sites are known:
 * what each probe reads (the event table), the globals' watchpoints, the
 * per-slice watches. -1 with e set naming the spec line. */
struct vg_libs;
struct vg_dwarf_cache;
/* where each site's probe goes, from what the reads pass placed */
void vg_plan_pass_place(struct vg_plan *p);
int vg_plan_pass_reads(struct vg_plan *p, const struct vg_plan_opts *o,
		       struct vg_dwarf_cache **dc, struct vg_err *e);
int vg_plan_pass_watches(struct vg_plan *p, const struct vg_plan_opts *o,
			 struct vg_libs *libs, struct vg_dwarf_cache **dc,
			 struct vg_err *e);

/* The tier pass alone (vigil lint without --binary, the session): kernel
 * and why per property, as vg_plan_build decides them (no_ktimer as in
 * vg_plan_opts). */
int vg_plan_tiers(const struct vg_spec *spec, enum vg_tier tier,
		  bool no_ktimer, bool *kernel, char (*why)[256],
		  struct vg_err *e);

/* plan_ktier.c. Why a property cannot run in the kernel tier: NULL when
 * it can (no_ktimer as in vg_plan_opts). */
const char *vg_ktier_ineligible(const struct vg_spec *spec, int prop,
				bool no_ktimer, char *buf, size_t len);
/* Does only a memory predicate keep property prop out of the kernel
 * tier (the BPF one: the in-process agent can answer them,
 * plan_memfast.c)? */
bool vg_ktier_mem_only(const struct vg_spec *spec, int prop, bool no_ktimer);
/* plan_memfast.c. A property kept out of the kernel tier by its memory
 * predicates alone gets it when the in-process tier takes every function
 * its events use: its agent keeps an object map (include/vigil_objmap.h)
 * and steps it there. vg_plan_mem_candidates marks them kernel (before
 * the plan's other passes; no[i]: why property i was found not to fit
 * by an earlier round, "" for none); vg_plan_mem_check, once the
 * in-process tier's pass ran, says (into no) which of them it did not
 * take whole: true when the plan must be built again without them. */
void vg_plan_mem_candidates(struct vg_plan *p, const struct vg_plan_opts *o,
			    char (*why)[256], char (*no)[192]);
bool vg_plan_mem_check(const struct vg_plan *p, char (*no)[192]);
/* Can any of spec's properties run in the kernel tier? */
bool vg_ktier_any_eligible(const struct vg_spec *spec, bool no_ktimer);
/* The kernel tier's tables for the plan's kernel-tier properties (a pass
 * of vg_plan_build: no map is touched; probe/ktier.c writes them), and
 * each event's kernel-tier fields in its plan's conf. -1 with e set when
 * they do not fit. */
int vg_ktier_plan(struct vg_plan *plan, struct vg_err *e);
/* The tables of kt laid out as the kernel tier's maps are, into arrays of
 * their sizes (the in-process tier's region, include/vigil_fast.h):
 * kprops[VG_KMAX_PROPS], ktrans[VG_KMAX_PROPS * VG_KMAX_STATES *
 * VG_KMAX_BINDINGS] by VG_KTRANS_INDEX, kcode[VG_KMAX_CODE]; what no
 * entry of kt names is left as it was (zeroed, as a new map's). */
void vg_ktier_fill(const struct vg_plan_ktables *kt, struct vg_kprop *kprops,
		   struct vg_ktrans *ktrans, struct vg_insn *kcode);
/* The states of p with a timeout, as a bit mask (vg_kprop.timed_mask). */
uint32_t vg_ktimer_states(const struct vg_property *p);

/* plan_unseen.c: after the in-process tier's pass, the sites whose
 * function starts with a vector instruction and that it did not take
 * are dropped: their events cannot be seen, each property that uses one
 * says so (props[i].unseen) and a warning to o->warn names the function,
 * its file and why. A function that counts an `outside` depth is refused
 * (-1, exit status 2): left uncounted, the depth would let through what
 * the clause leaves out. */
int vg_plan_pass_unseen(struct vg_plan *p, const struct vg_plan_opts *o,
			struct vg_err *e);

/* plan_fast.c: which sites the in-process tier takes (vg_plan_site.fast),
 * a pass of vg_plan_build after the kernel tier's tables. Returns how
 * many, or -1 with e set when out of memory. */
int vg_plan_pass_fast(struct vg_plan *p, const struct vg_plan_opts *o,
		      struct vg_err *e);
/* Is name one of the hot library functions (memory, strings, locks)? */
bool vg_plan_fast_hot(const char *name);
/* Will the in-process tier likely take spec's event i, from what o asks
 * (--fast, the features' refusals) and the event alone? The BPF object's
 * early load (probe/probe_early.c) leaves such events' programs out; a
 * guess the plan proves wrong costs a second load, never a wrong one. */
bool vg_plan_fast_predicted(const struct vg_spec *spec, int i,
			    const struct vg_plan_opts *o);
/* --fast LIST, as run, attach and lint take it: `hot` (the hot library
 * functions) and function names or glob patterns, comma-separated; r
 * keeps the names (vg_plan_fast_free). Applied to o, or none when off
 * (--no-fast). */
#define VG_PLAN_FAST_NAMES 32
struct vg_plan_fast_req {
	bool hot;
	const char *names[VG_PLAN_FAST_NAMES];
	size_t n;
	char *buf;
};
int vg_plan_fast_parse(const char *list, struct vg_plan_fast_req *r,
		       struct vg_err *e);
/* The list a run or lint takes without --fast or --no-fast: `hot`, or
 * VIGIL_FAST's (a machine's or a service's default; `off`: none, NULL) */
const char *vg_plan_fast_default(void);
void vg_plan_fast_apply(const struct vg_plan_fast_req *r, bool off,
			struct vg_plan_opts *o);

/* What lint --binary prints: one line per property (tier, stop states),
 * per event (flags) and per site (file+offset, program, placement). */
void vg_plan_print(const struct vg_plan *p, FILE *out);

/* Where the debug registers do not fire (plan->no_debug_regs), the line
 * that says so: which events of which properties cannot be seen, and that
 * what they guard ends inconclusive; "" when there is nothing to say. */
void vg_plan_blind_line(const struct vg_plan *p, char *buf, size_t len);

/* A new site at the end of p->sites, zeroed but for its event and
 * program (the passes fill the rest); NULL with e set when out of memory.
 * Earlier site pointers may move. */
struct vg_plan_site *vg_plan_new_site(struct vg_plan *p, int event,
				      enum vg_plan_prog prog, struct vg_err *e);

/* plan_creq.c: the sites of the client-request event (vg_event's
 * client_request): every valgrind client request in the program's and
 * its libraries' code; none is no error. */
int vg_plan_creq_sites(struct vg_plan *p, int event, struct vg_libs *libs,
		       struct vg_err *e);

/* Whether the program binary or the libraries the loader maps for it (and
 * libs, --lib's) make any valgrind client request, as vg_plan_creq_sites
 * would find: decided before the plan, so that the BPF object loaded
 * while it is built has vg_creq only when a site will run it. True when
 * a file cannot be read (the plan then says why). */
bool vg_plan_creq_any(const char *binary, const char *const *libs,
		      size_t nlibs);

/* For lint --binary, before the plan: one line per function probe, where
 * it is found (in the binary, its libraries, or --lib's), what a C++ name
 * resolved to, where the entry probe goes and whether the kernel must
 * single-step it (slow), and what each argument the spec names is. */
void vg_plan_describe(const struct vg_plan *p, FILE *out);

/* The name of the BPF program a site runs, as bpftool shows it */
const char *vg_plan_prog_name(const struct vg_plan *p, enum vg_plan_prog k);

#endif
