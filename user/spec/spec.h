/* The compiled spec: what the parser produces from .vigil files and what the
 * monitor, the probe layer, the kernel tier and the reports consume.
 *
 * A spec is a list of properties plus the table of distinct events they use.
 * Events are shared: two properties that both say `before free(p)` use one
 * event (and so one probe). Each property is an automaton whose transitions
 * refer to events by index into spec->events.
 *
 * This header is the contract between user/spec/ and everything else. Other
 * modules read these structs; only user/spec/ builds them.
 */
#ifndef VIGIL_SPEC_H
#define VIGIL_SPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vigil_code.h"
#include "../util/err.h"

#define VG_MAX_PARAMS 4		/* slice parameters of one property */
#define VG_UNBOUND 0xff		/* binding slot: event does not bind this parameter */
#define VG_WATCH_OUTSIDE 6	/* functions of one `outside` clause */
#define VG_CHANGE_LOCS 4	/* memory locations one `change` reads */

struct vg_loc {
	const char *file;	/* owned by the spec */
	int line, col;		/* 1-based */
};

enum vg_type {
	VG_TYPE_INT,		/* int64 */
	VG_TYPE_UINT,		/* uint64 */
	VG_TYPE_BOOL,
	VG_TYPE_PTR,
	VG_TYPE_STR,		/* interned: the value is an id from vg_spec_intern */
};

enum vg_event_kind {
	VG_EV_BEFORE,		/* before f(args): uprobe at entry */
	VG_EV_AFTER,		/* after f(args) returns r: uretprobe; args from entry */
	VG_EV_WRITE,		/* write x */
	VG_EV_READ,		/* read x */
	VG_EV_ACCESS,		/* access x */
	VG_EV_CHANGE,		/* change EXPR */
	VG_EV_SYSCALL,		/* syscall name(args) */
	VG_EV_EXIT,		/* exit(code) */
	VG_EV_SIGNAL,		/* signal(sig) */
	VG_EV_THREAD_START,
	VG_EV_THREAD_EXIT,
	VG_EV_NAMED,		/* `event name(a, b)` declared for traces */
	VG_EV_TIMEOUT,		/* a state's `within` ran out: no probe; the
				 * monitor makes these (docs/LANGUAGE.md,
				 * Time). One per spec, named "timeout"; a
				 * recording's timeout records are ticks of
				 * the clock (trace/record.c) */
};

/* The fields of a timeout event (struct vg_mon_event.slot), for reports:
 * when the slice entered the state, the limit, and the moment the timer
 * actually fired (the event's time_ns is the deadline itself, so that a
 * replay computes the same). The stack and caller slots are those of the
 * event that entered the state. */
#define VG_TSLOT_ENTERED 0
#define VG_TSLOT_LIMIT 1
#define VG_TSLOT_FIRED 2
#define VG_TSLOT_STATE 3

/* A distinct event of the run. */
/* A value read from target memory when the event happens: `q->count`,
 * `p->a.b`, `p->next->val` or `*p`, where q and p are fields of the event
 * (a parameter, or ret). Its value is in slot VG_SLOT_CAP0 + its index;
 * the probe learns the offsets from the binary's DWARF. */
struct vg_capture {
	uint8_t src;		/* the slot of the pointer */
	bool is_str;		/* str(...): the C string there, interned */
	/* a pattern's `*name`: without DWARF for the function, the 8 bytes
	 * there (as a position without DWARF is its 8-byte register) */
	bool word;
	uint8_t str_idx;	/* is_str: its buffer in the record */
	char path[96];		/* "count", "a.b", "next->val"; "" for *p
				 * (and for str(p)) */
	char text[128];		/* as written: "q->count" */
	struct vg_loc loc;	/* first use */
};

/* Where a write/read/access event watches, from its expression: a global
 * of the program (`x`, `::x`), or memory that a slice parameter or
 * variable points to (`*p`, `q->count`, `*p @ size`), armed per slice while
 * the slice is in a state that consumes the event (user/session/watch*.c). */
struct vg_watch_loc {
	bool per_slice;		/* *base or base->...: base is a slice
				 * parameter or variable */
	char base[64];		/* the root name */
	char path[96];		/* members below it, as for captures:
				 * "count", "a.b", "next->val"; "" for *p */
	char count[64];		/* `@ N`: N as written (digits or a slice
				 * parameter or variable); "" when absent */
};

_Static_assert(VG_WSLOT_PARAM0 + VG_MAX_PARAMS <= VG_MAX_FIELDS,
	       "a watch event's fields fit its positional slots");

#define VG_STR_RET_BIT (1u << 31)

struct vg_event {
	enum vg_event_kind kind;
	char *name;		/* function, syscall, variable or expression
				 * text, or declared event name; "" for
				 * exit/signal/thread_* */
	int nfields;		/* positional fields used: slots 0..nfields-1 */
	/* the first name a pattern gives each position ("": none, or `_`),
	 * where it is; a live run compares it with the function's own */
	char argname[VG_MAX_FIELDS][64];
	struct vg_loc argloc[VG_MAX_FIELDS];
	uint32_t used;		/* bit i: a guard, update, binding or
				 * capture reads position i */
	/* bit i: position i binds a `string` slice parameter, so its value
	 * is an interned id (reports print the string); VG_STR_RET_BIT:
	 * the return value does */
	uint32_t str_fields;
	/* bit i: position i binds a slice parameter (its name is the
	 * spec's, whatever the function calls it) */
	uint32_t binds;
	bool uses_ret;		/* slot VG_SLOT_RET is used */
	struct vg_loc loc;	/* first use */
	int ncaps;
	struct vg_capture caps[VG_MAX_CAPS];
	int nstrs;		/* of the captures, str(...) ones */
	struct vg_watch_loc wloc;	/* write/read/access; for change, the
					 * first of cloc (per_slice: all are) */
	/* change EXPR: the memory EXPR reads (each a write watchpoint), and
	 * EXPR as bytecode over them: location k is slot k */
	int ncloc;
	struct vg_watch_loc cloc[VG_CHANGE_LOCS];
	struct vg_insn *ccode;
	int nccode;
	/* `outside f, g` (write/read/access, before, after): what a thread
	 * does while inside one of these functions is not this event (an
	 * allocator's bookkeeping in the blocks it manages, the statements
	 * sqlite3_exec prepares for itself). outside_mask has the inside_bit
	 * of each. */
	int noutside;
	char outside[VG_WATCH_OUTSIDE][64];
	uint16_t outside_mask;
	/* before/after of a function some `outside` clause names: the probe
	 * keeps, per thread, how deep it is in that function, as depth
	 * inside_bit of the thread's entry in the `inside` map */
	bool marks_inside;
	uint8_t inside_bit;
	/* a call the session added (user/watchset/callacc.c): memcpy,
	 * read(2)... whose buffers may touch the memory of per-slice watch
	 * event access_for - 1; 0 for the spec's own events */
	int access_for;
	/* and its buffers: position of each pointer and of its length
	 * (0xff: one byte), for the probe's page filter */
	uint8_t nrng, rng_ptr[2], rng_len[2];
	/* the leak check's valgrind client requests (leaks/leaks_creq.c):
	 * probed at each request's xchg, not at a function; its positions
	 * are the request array's words */
	bool client_request;
	/* which requests it takes (include/vigil_creq.h): the leak
	 * requests (--leak-check), those that silence errors (a watch on
	 * freed blocks, watchset/watchset_quiet.c) */
	uint8_t creq_for;
	/* the dynamic loader's rendezvous the session added
	 * (symval/symval.c, `before _dl_debug_state`): its probe holds the
	 * process while vigil reads its mappings; no property's, not
	 * counted in the stats, optional where there is no loader */
	bool maps_sync;
	/* the program's own allocator (docs/LANGUAGE.md, Parameters): an
	 * `after $alloc(size) returns p` gives out a block, a
	 * `before $release(p)` takes one back, whatever function -D names;
	 * the object map follows them (user/objmap/allocs.c) */
	enum vg_heap_role { VG_HEAP_NONE, VG_HEAP_ALLOC,
			    VG_HEAP_RELEASE } heap_role;
};

#define VG_CREQ_FOR_LEAKS 0x1
#define VG_CREQ_FOR_ERRS 0x2
/* the name of that event, whichever of the two adds it: the request
 * array's six words as its positions */
#define VG_CREQ_EVENT "VALGRIND_CLIENT_REQUEST"

struct vg_var {
	char *name;
	enum vg_type type;
	int64_t init;		/* initial value (bit pattern for uint/ptr) */
	struct vg_loc loc;
	/* `clock c`: holds the time of its last `reset c` (ns, the event
	 * clock); reading `c` gives the time since then */
	bool clock;
	/* the property's hidden "(deadline)": the deadline of the timed
	 * state the slice is in, 0 in others */
	bool hidden;
};

/* A code range in prop->code; len == 0 means "none" (a guard that holds, an
 * update that does nothing). The last instruction of a range is VG_OP_END. */
struct vg_code_ref {
	uint32_t off, len;
};

enum vg_state_kind {
	VG_STATE_ACCEPTING,
	VG_STATE_NONACCEPTING,
	VG_STATE_VIOLATION,	/* bad and final */
};

struct vg_state {
	char *name;
	enum vg_state_kind kind;
	struct vg_loc loc;
	/* `within LIMIT else { update } -> to`: a slice may stay here until
	 * the deadline the `deadline` program computes when it enters (the
	 * entry's time plus LIMIT, or a clock's reset time plus its bound);
	 * then it takes the timeout: `timeout_update` runs and it moves to
	 * timeout_to. Leaving cancels it, entering again restarts it. */
	bool timed;
	int timeout_to;
	struct vg_code_ref deadline, timeout_update;
	int64_t limit_ns;	/* LIMIT when it is a constant, else -1 */
	struct vg_loc timeout_loc;
};

/* How one event binds the property's slice parameters: for parameter i,
 * slot[i] is the event slot that holds its value, or VG_UNBOUND. It is the
 * same for every transition on that event within the property (the checker
 * enforces it), so the monitor can find the slice before it knows the state. */
struct vg_binding {
	int event;		/* index into spec->events */
	uint8_t slot[VG_MAX_PARAMS];
	uint32_t mask;		/* bit i set when parameter i is bound */
	/* the event creates the values it binds, so it may start a
	 * binding's next life over a tombstone (docs/LANGUAGE.md, Memory):
	 * an `after` event that binds a parameter from the return value or
	 * through an out-pointer (`*p`), or one the spec calls `creation` */
	bool creates;
};

struct vg_transition {
	int from, to;		/* state indices */
	int event;		/* index into spec->events */
	int binding;		/* index into prop->bindings */
	struct vg_code_ref guard, update;
	struct vg_loc loc;
};

enum vg_action_kind {
	VG_ACT_LOG,		/* arg: format, "{name}" expands a parameter or variable */
	VG_ACT_STOP,
	VG_ACT_GDB,
	VG_ACT_BACKTRACE,
	VG_ACT_CHECKPOINT,
	VG_ACT_RESTORE,
	VG_ACT_WATCH,		/* arg: expression text */
	VG_ACT_UNWATCH,		/* arg: expression text */
	VG_ACT_EXEC,		/* arg: command */
	VG_ACT_KILL,
};

struct vg_action {
	enum vg_action_kind kind;
	char *arg;		/* NULL when the action takes none */
	struct vg_loc loc;
};

/* `on enter S: a, b` / `on leave S: ...`. A self-loop counts as both. */
struct vg_reaction {
	bool on_enter;		/* false: on leave */
	int state;
	int nactions;
	struct vg_action *actions;
	struct vg_loc loc;
};

struct vg_property {
	char *name;
	char *description;	/* may be "" */
	struct vg_loc loc;
	/* --on-violation PROP=REACTION (the agent's reaction.PROP): this
	 * property's default reaction (an enum vg_on_violation) instead of
	 * the run's, when has_on_violation */
	bool has_on_violation;
	int on_violation;

	int nparams;		/* `slice on a, b`; 0 = one instance */
	char *params[VG_MAX_PARAMS];
	enum vg_type param_types[VG_MAX_PARAMS];

	int nvars;		/* per-slice variables: VG_OP_LDVAR/STVAR idx */
	struct vg_var *vars;
	int nglobals;		/* `global` variables: VG_OP_LDGLOB/STGLOB idx */
	struct vg_var *globals;

	int nstates;		/* states[0] is the initial state: the first declared */
	struct vg_state *states;

	int ntrans;		/* in source order; the first whose guard holds wins */
	struct vg_transition *trans;

	int nbindings;		/* one per event the property uses */
	struct vg_binding *bindings;

	int nreactions;
	struct vg_reaction *reactions;

	int ncode;
	struct vg_insn *code;

	/* a state with `within`: its slices have the hidden variable
	 * deadline_var, and timeouts are spec event timeout_event */
	bool timed;
	int deadline_var;
	int timeout_event;
};

struct vg_spec {
	int nprops;
	struct vg_property *props;
	int nevents;
	struct vg_event *events;
	/* private: files, string table */
	struct vg_spec_priv *priv;
};

struct vg_spec *vg_spec_new(void);
void vg_spec_free(struct vg_spec *spec);

/* Parse a .vigil file and append its properties (and those of the files it
 * includes) to spec. On error returns -1 with e->msg like
 *   "specs/x.vigil:3:14: error: expected ')' after parameters\n"
 *   "    before queue_push(q -> ready\n"
 *   "                        ^\n"
 * and e->exit_code == VG_EXIT_USAGE. The spec is left as before the call. */
int vg_spec_load_file(struct vg_spec *spec, const char *path, struct vg_err *e);
/* Same for text in memory; name is used in messages as the file name. */
int vg_spec_load_string(struct vg_spec *spec, const char *name,
			const char *text, struct vg_err *e);

/* -D NAME=VALUE: the value of `param NAME` in the files loaded after this
 * call, instead of the default the file gives (docs/LANGUAGE.md,
 * Parameters). A later define of the same name replaces the value. -1 (e
 * set, exit status 2) when NAME is not a name, or either is longer than
 * its bound below. A value that is not of the
 * default's kind is an error of the load, at the declaration. */
#define VG_DEFINE_NAME_MAX 255	/* bytes of a -D name */
#define VG_DEFINE_VALUE_MAX 4096	/* and of its value */
int vg_spec_define(struct vg_spec *spec, const char *name, const char *value,
		   struct vg_err *e);
/* After the loads: -1 (e set, exit status 2) naming a define that no
 * loaded file declares, which is a typo more often than not. */
int vg_spec_check_defines(const struct vg_spec *spec, struct vg_err *e);
/* Does a loaded file declare `param name` (was -D name used)? */
bool vg_spec_define_used(const struct vg_spec *spec, const char *name);
/* The functions (names or glob patterns) the spec's `fast` lines give
 * the in-process tier: i from 0, NULL past the last. */
const char *vg_spec_fast(const struct vg_spec *spec, int i);
/* The files loaded so far, includes too, as realpaths: i from 0, NULL
 * past the last (vigil agent hashes them to see what a reload changed). */
const char *vg_spec_file(const struct vg_spec *spec, int i);

/* Warnings a user wants to see before running: unused or unreachable
 * states, transitions that can never fire. One line each, file:line:col:
 * warning: ..., written to out. Returns the number of warnings. */
int vg_spec_lint(const struct vg_spec *spec, FILE *out);

/* Strings: values of VG_TYPE_STR are ids into a table owned by the spec,
 * shared by constants in the code and by values read from traces. */
uint64_t vg_spec_intern(struct vg_spec *spec, const char *s);
const char *vg_spec_string(const struct vg_spec *spec, uint64_t id);

/* Lookups, -1 when absent. */
int vg_spec_find_event(const struct vg_spec *spec, enum vg_event_kind kind,
		       const char *name);
int vg_property_find_state(const struct vg_property *p, const char *name);

/* The binding of an event in a property, or NULL if the property does not
 * use the event. */
const struct vg_binding *vg_property_binding(const struct vg_property *p,
					     int event);

/* Does the state have a reaction with an action of this kind? */
bool vg_property_state_has_action(const struct vg_property *p, int state,
				  bool on_enter, enum vg_action_kind kind);
/* Does any reaction of the property, on entering or leaving a state, take
 * a backtrace? (its events then capture the user stack) */
bool vg_property_backtraces(const struct vg_property *p);
/* Does a reaction on entering the state ask for a watch? */
bool vg_property_state_watches(const struct vg_property *p, int state);

const char *vg_event_kind_name(enum vg_event_kind k);
/* write/read/access events; and those with change */
bool vg_event_is_watch(const struct vg_event *ev);
bool vg_event_watches(const struct vg_event *ev);
/* any of those in the spec: a run of it needs debug registers */
bool vg_spec_watches(const struct vg_spec *spec);
/* Does property k take event i? Does any (else event i only counts an
 * `outside` depth)? */
bool vg_prop_binds(const struct vg_spec *spec, int k, int i);
bool vg_spec_binds(const struct vg_spec *spec, int i);
/* one of those, per slice (`write q->count`), not a global's */
bool vg_event_watches_slice(const struct vg_event *ev);
/* A per-slice watch event's base (and its `@ N` count, when N is a name)
 * in property p: a slice parameter (*is_var false) or variable, by index;
 * -1 when p has no such name. */
int vg_watch_name(const struct vg_property *p, const char *name,
		  bool *is_var);
const char *vg_state_kind_name(enum vg_state_kind k);

/* The memory predicates (mempred.c, include/vigil_code.h's enum
 * vg_mem_pred): by name (-1 when none; *nargs its arguments), their
 * names, and which give a truth value rather than a number. */
int vg_mem_pred_find(const char *name, int *nargs);
const char *vg_mem_pred_name(int pred);
bool vg_mem_pred_is_bool(int pred);
/* The first memory predicate the code range r uses, -1 when none; the
 * first a property uses anywhere (*line: where, when not NULL): such a
 * property needs the run's object map, which is in user space. */
int vg_code_mem_pred(const struct vg_insn *code, struct vg_code_ref r);
/* does r read the process's memory itself (strlen_at), which the program
 * may write over once the call goes on? */
bool vg_code_reads_memory(const struct vg_insn *code, struct vg_code_ref r);
int vg_property_mem_pred(const struct vg_property *p, int *line);

#endif
