/* The plan of a run: everything it will put in the kernel, decided from the
 * compiled spec and the binaries before anything is loaded (user/plan/).
 *
 * vg_plan_build runs the deciders as passes over one object: each
 * property's tier (probe/ktier.c's eligibility), the states whose entry
 * stops the target (act/scenario.c), the events whose user stack is taken
 * (a `backtrace` reaction, --stacks), the events that hold a slice that
 * arms a watchpoint (session/watchset_plan.c), --dynamic's arming sets
 * (session/dynamic.c); then each event's flags as the probes see them
 * (VG_EVF_*), and the probe sites: where each function probe goes (file,
 * offset after placement, entry or return), which BPF program runs there,
 * and what it reads. The session hands the plan to user/probe/, which
 * installs exactly its sites; `vigil lint --binary` prints it.
 *
 * Building a plan needs no privilege: it reads ELF and DWARF only. */
#ifndef VIGIL_PLAN_H
#define VIGIL_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "session/session.h"
#include "spec/spec.h"

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
};

/* The BPF program a site runs (bpf/vigil.bpf.c) */
enum vg_plan_prog {
	VG_PROG_ENTRY,		/* vg_entry, or vg_entry_k with a kernel tier */
	VG_PROG_ENTRY_S,	/* reads C strings: the sleepable build */
	VG_PROG_STASH,		/* `after f(args)`: the entry half */
	VG_PROG_RETURN,		/* vg_return / vg_return_k */
	VG_PROG_RETURN_S,
};

struct vg_plan_site {
	int event;
	enum vg_plan_prog prog;
	bool retprobe;
	char path[4096];	/* the file the function is in */
	char sym[256];		/* its symbol (a C++ name's mangled one); ""
				 * when DWARF alone had the function */
	uint64_t func;		/* the function's file offset */
	uint64_t offset;	/* the probe's: after placement for entries */
	bool emulated;		/* the kernel emulates the probed instruction */
	int skipped;		/* instructions placement moved past */
	char insn[32];		/* the instruction probed, e.g. "push %rbp" */
	bool dormant;		/* --dynamic: detached until a slice needs it */
};

struct vg_plan_prop {
	bool kernel;
	char why[256];		/* user tier: why not kernel */
	uint32_t stop_mask;	/* states whose entry stops the target */
};

struct vg_plan_event {
	uint32_t flags;		/* the VG_EVF_* decided here: USER, WAKE,
				 * STACK, HOLD, ENTER, LEAVE */
	uint64_t arms;		/* --dynamic: the events it may make needed */
};

struct vg_plan {
	const struct vg_spec *spec;
	int nprops, nevents;
	struct vg_plan_prop *props;	/* [nprops] */
	struct vg_plan_event *events;	/* [nevents] */
	bool any_kernel;		/* the kernel-tier builds are loaded */
	uint64_t dormant;		/* --dynamic: entry events that start
					 * detached (bits below 64) */
	struct vg_plan_site *sites;	/* with a binary: every uprobe */
	int nsites;
	/* tracepoints beyond the three always there (exit, fork, exec) */
	bool tp_signal, tp_syscalls;
	int nwatch_globals;		/* `write x` etc. on globals */
	/* per-array views the deciders' callers want (same data as above) */
	bool *kernel;			/* [nprops] */
	uint32_t *stop_masks;		/* [nprops] */
	bool *stack_events;		/* [nevents] */
	bool *hold_events;		/* [nevents], NULL: none */
	bool *release_events;		/* VG_EVF_UNWATCH ones, likewise */
	uint64_t *arms;			/* [nevents], NULL without --dynamic */
};

/* Build the plan; -1 with e set (a property that cannot have the tier
 * asked for, a function not found, an argument DWARF cannot place: exit
 * status 2). Frees nothing of spec, which must outlive the plan. */
struct vg_plan *vg_plan_build(const struct vg_spec *spec,
			      const struct vg_plan_opts *o, struct vg_err *e);
void vg_plan_free(struct vg_plan *p);

/* The tier pass alone (vigil lint without --binary, the session): kernel
 * and why per property, as vg_plan_build decides them. */
int vg_plan_tiers(const struct vg_spec *spec, enum vg_tier tier,
		  bool *kernel, char (*why)[256], struct vg_err *e);

/* What lint --binary prints: one line per property (tier, stop states),
 * per event (flags) and per site (file+offset, program, placement). */
void vg_plan_print(const struct vg_plan *p, FILE *out);

/* The name of the BPF program a site runs, as bpftool shows it */
const char *vg_plan_prog_name(const struct vg_plan *p, enum vg_plan_prog k);

#endif
