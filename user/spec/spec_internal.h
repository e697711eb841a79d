/* Private to user/spec/: the load context, tokens, the syntax tree, and the
 * helpers the lexer, parser, compiler and linter share.
 *
 * Errors inside a load unwind with longjmp to vg_spec_load_*: the first
 * error stops everything, and every allocation made during a load is either
 * in the arena (tokens, syntax tree) or reachable from struct vg_ld, so the
 * unwinding path can free it all and leave the spec as it was. */
#ifndef VIGIL_SPEC_INTERNAL_H
#define VIGIL_SPEC_INTERNAL_H

#include <setjmp.h>
#include <stddef.h>

#include "spec.h"

/* Deep enough for any real expression, shallow enough that the recursive
 * walks over the tree cannot exhaust the C stack on hostile input. */
#define VG_MAX_EXPR_HEIGHT 200

/* ---- arena ------------------------------------------------------------ */

struct vg_arena {
	struct vg_arena_blk *head;
};

void *vg_arena_alloc(struct vg_arena *a, size_t n);	/* zeroed */
char *vg_arena_strndup(struct vg_arena *a, const char *s, size_t n);
char *vg_arena_strdup(struct vg_arena *a, const char *s);
/* Grow an arena array of *cap elements of size sz to hold need. */
void *vg_arena_grow(struct vg_arena *a, void *arr, int *cap, int need,
		    size_t sz);
void vg_arena_free(struct vg_arena *a);


/* ---- tokens ----------------------------------------------------------- */

enum vg_tok {
	T_EOF, T_ERROR, T_IDENT, T_INT, T_STRING,
	T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_COMMA, T_SEMI, T_COLON,
	T_COLONCOLON,
	T_ARROW, T_DOT, T_QUESTION,
	T_AT, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_AMP, T_PIPE, T_CARET,
	T_TILDE, T_BANG, T_LT, T_GT, T_LE, T_GE, T_EQEQ, T_NE, T_SHL, T_SHR,
	T_ANDAND, T_OROR,
	T_ASSIGN, T_ADDEQ, T_SUBEQ, T_MULEQ, T_DIVEQ, T_MODEQ, T_ANDEQ,
	T_OREQ, T_XOREQ, T_SHLEQ, T_SHREQ, T_INC, T_DEC,
	T_PARAM,		/* $NAME: str is NAME; the parser substitutes it */
	T__COUNT
};

struct vg_token {
	enum vg_tok kind;
	struct vg_loc loc;
	const char *start;	/* into the source text */
	size_t len;
	uint64_t ival;		/* T_INT */
	char *str;		/* T_IDENT, T_STRING (decoded), T_ERROR (message),
				 * T_PARAM (the name after $) */
	const char *param;	/* the `param` it stands for, NULL: none */
};

/* A whole file's tokens, ending with T_EOF or T_ERROR: the parser needs
 * up to three tokens of lookahead to tell `p->next` from `-> next`. */
struct vg_ld;
struct vg_token *vg_lex(struct vg_ld *ld, const char *file,
			const char *text, size_t len, int *ntok);
const char *vg_tok_name(enum vg_tok t);
/* A duration unit at p (ns, us, ms, s, not followed by a name's
 * character): its length, and *mult its nanoseconds; 0 when none. */
size_t vg_unit_suffix(const char *p, size_t n, uint64_t *mult);

/* ---- syntax tree ------------------------------------------------------ */

enum vg_ex {
	EX_INT, EX_BOOL, EX_NULL, EX_STR, EX_NAME,
	EX_UNARY,		/* op: T_MINUS T_BANG T_TILDE T_STAR (deref) */
	EX_BINARY,		/* op: the operator token */
	EX_COND,		/* a ? b : c */
	EX_MEMBER,		/* a->str (arrow) or a.str */
	EX_STRREAD,		/* str(a): the C string at a, read by the probe */
	EX_GLOBAL,		/* ::str, a global variable of the target */
	EX_MEMPRED,		/* valid(a, b), block_length(a): ival is the
				 * enum vg_mem_pred, b NULL for one argument */
};

struct vg_expr {
	enum vg_ex kind;
	struct vg_loc loc;	/* the operator for unary/binary/member */
	struct vg_loc start;	/* the first token */
	enum vg_tok op;
	bool arrow;
	bool unsig;		/* integer literal above INT64_MAX */
	int height;
	int64_t ival;
	char *str;		/* name, member, or string literal */
	struct vg_expr *a, *b, *c;
};

struct vg_stmt {
	struct vg_loc loc;	/* the assigned name */
	char *name;
	enum vg_tok op;		/* T_ASSIGN, a compound op, T_INC, T_DEC */
	struct vg_loc op_loc;
	struct vg_expr *value;	/* NULL for ++ and -- */
	bool reset;		/* `reset c` (a clock); op is T_EOF */
};

struct vg_pname {
	char *name;		/* NULL for `_` */
	struct vg_loc loc;
	/* `*name`: the position is a pointer, and name is what it points to,
	 * read when the event happens (an out-parameter at an `after`) */
	bool deref;
};

struct vg_pattern {
	enum vg_event_kind kind;
	struct vg_loc loc;	/* the keyword, or the name of a NAMED event */
	char *name;		/* canonical event name, "" for exit/signal/... */
	struct vg_loc name_loc;
	const char *param;	/* the name is `$param` (NULL: not one) */
	int nnames, capnames;
	struct vg_pname *names;
	bool has_ret;
	struct vg_pname ret;
	/* write/read/access: the location, the N of `@ N` (NULL: none),
	 * the functions of `outside f, g` */
	struct vg_expr *wexpr, *wcount;
	struct vg_pname outside[VG_WATCH_OUTSIDE];
	int noutside;
};

struct vg_trans_ast {
	bool creation;		/* `creation EVENT ... -> S` */
	struct vg_pattern pat;
	struct vg_expr *guard;	/* NULL: none */
	int nstmts, capstmts;
	struct vg_stmt *stmts;
	char *to;
	struct vg_loc to_loc;
};

struct vg_state_ast {
	char *name;
	struct vg_loc loc;
	enum vg_state_kind kind;
	int ntrans, captrans;
	struct vg_trans_ast *trans;
	/* `within LIMIT else { ... } -> to`: LIMIT in guard, loc in
	 * pat.loc (the `within`); NULL when the state has none */
	struct vg_trans_ast *timeout;
};

struct vg_var_ast {
	char *name;
	struct vg_loc loc;
	enum vg_type type;
	bool global;
	bool clock;		/* `clock c` */
	struct vg_expr *init;	/* NULL: 0 */
};

struct vg_param_ast {
	char *name;
	struct vg_loc loc;
	enum vg_type type;
};

struct vg_evdecl {
	char *name;
	struct vg_loc loc;
	bool creation;		/* `creation event NAME(...)` */
	int nfields, capfields;
	char **fields;
};

struct vg_action_ast {
	enum vg_action_kind kind;
	struct vg_loc loc;
	char *arg;		/* string or canonical expression text */
};

struct vg_reaction_ast {
	bool on_enter;
	struct vg_loc loc;
	char *state;
	struct vg_loc state_loc;
	int nactions, capactions;
	struct vg_action_ast *actions;
};

struct vg_prop_ast {
	char *name;
	char *desc;
	struct vg_loc loc;
	bool sliced;
	struct vg_loc slice_loc;
	int nparams;
	struct vg_param_ast params[VG_MAX_PARAMS];
	int nvars, capvars;
	struct vg_var_ast *vars;
	int nevdecls, capevdecls;
	struct vg_evdecl *evdecls;
	int nstates, capstates;
	struct vg_state_ast *states;
	int nreactions, capreactions;
	struct vg_reaction_ast *reactions;
};

/* Canonical text of an expression: event names of write/read/change and
 * arguments of watch, so that `q -> count` and `q->count` are one event. */
char *vg_expr_text(struct vg_arena *a, const struct vg_expr *e);

/* ---- load context ----------------------------------------------------- */

struct vg_src {
	char *name;		/* malloc'd; handed to the spec on success */
	char *text;		/* malloc'd */
	size_t len;
};

struct vg_ld {
	struct vg_spec *spec;
	struct vg_err *err;
	jmp_buf jb;
	struct vg_arena arena;

	int nsrcs, capsrcs;
	struct vg_src *srcs;

	/* realpaths: of files on the include stack (cycle detection), and
	 * of files loaded in this call (each file loaded once) */
	int nstack, capstack;
	char **stack;
	int nloaded, caploaded;
	char **loaded;

	int nprops, capprops;
	struct vg_prop_ast *props;
	/* `fast` lines: functions for the in-process tier (arena strings) */
	int nfast, capfast;
	const char **fast;

	/* output of the compiler, moved into the spec on success */
	int nout;
	struct vg_property *out;
	int nevents;		/* starts as a copy of spec->events */
	struct vg_event *events;
	int old_nevents;

	/* spec parameters (params.c): which -D defines a `param` of this
	 * load took ([ndefines], NULL until one does), and the names its
	 * files declare; both reach the spec only when the load succeeds */
	bool *def_used;
	int ndeclared, capdeclared;
	char **declared;	/* arena */
};

/* Report an error at loc (with the source line and a caret) and unwind. */
_Noreturn void vg_ld_error(struct vg_ld *ld, struct vg_loc loc,
			   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
_Noreturn void vg_ld_oom(struct vg_ld *ld);
void *vg_ld_xcalloc(struct vg_ld *ld, size_t n, size_t sz);	/* malloc */
char *vg_ld_xstrdup(struct vg_ld *ld, const char *s);		/* malloc */
/* Arena allocations that unwind on failure. */
void *vg_ld_alloc(struct vg_ld *ld, size_t n);
char *vg_ld_strndup(struct vg_ld *ld, const char *s, size_t n);
void *vg_ld_grow(struct vg_ld *ld, void *arr, int *cap, int need, size_t sz);

/* Append one zeroed element to an arena array, return a pointer to it. */
#define VG_PUSH(ld, arr, n, cap)                                             \
	((arr) = vg_ld_grow((ld), (arr), &(cap), (n) + 1, sizeof(*(arr))),  \
	 &(arr)[(n)++])

/* Parse one source (ld->srcs[src]) into ld->props, following includes. */
void vg_parse_src(struct vg_ld *ld, int src);
/* Load a file named by an include (or the top-level call): returns without
 * doing anything when the file was loaded before. */
void vg_ld_include(struct vg_ld *ld, const char *path, const struct vg_loc *at);

/* Compile ld->props into ld->out and ld->events. */
void vg_compile(struct vg_ld *ld);
void vg_property_release(struct vg_property *p);

/* Evaluate code that reads nothing from an event, a slice or the clock.
 * Returns 0 and the top of the stack (0 when it is empty), or -1 when the
 * code is not constant or is malformed. */
int vg_code_eval_const(const struct vg_insn *code, uint32_t len,
		       int64_t *out);

/* ---- spec parameters (params.c) -------------------------------------- */

/* The `param NAME = VALUE` declarations of one file, in order: a file's
 * parameters are its own (an included file has its scope). */
struct vg_pdecl {
	char *name;
	struct vg_loc loc;
	struct vg_token value;	/* T_IDENT, T_INT or T_STRING */
};
struct vg_pscope {
	int n, cap;
	struct vg_pdecl *v;
};

/* Declare `param name = value` in sc; a -D define of the name replaces
 * the value (converted to the default's kind, or an error at the name). */
void vg_param_declare(struct vg_ld *ld, struct vg_pscope *sc,
		      const struct vg_token *name,
		      const struct vg_token *value);
/* Turn a T_PARAM token into the value it stands for, in place; an error
 * at the token when sc has no such parameter. */
void vg_param_subst(struct vg_ld *ld, const struct vg_pscope *sc,
		    struct vg_token *t);
/* A successful load: its defines are used, its names declared. */
void vg_params_adopt(struct vg_spec *spec, struct vg_ld *ld);
struct vg_defines;
void vg_defines_free(struct vg_defines *d);
/* Where the spec keeps its defines (spec.c owns the field). */
struct vg_defines **vg_spec_defines(const struct vg_spec *spec);

/* String table rollback for a failed load. */
uint64_t vg_spec_nstrings(const struct vg_spec *spec);
void vg_spec_truncate_strings(struct vg_spec *spec, uint64_t n);
/* Files: is this realpath loaded into the spec already; remember files. */
bool vg_spec_has_file(const struct vg_spec *spec, const char *realpath);
void vg_spec_adopt(struct vg_spec *spec, struct vg_ld *ld);

#endif
