/* The property language's grammar: tokens to the syntax tree of
 * spec_internal.h. Names are checked later (compile.c), so the parser only
 * knows shapes; its errors say what it was looking for.
 *
 * The language is newline-insensitive, so an item ends where the next one
 * begins: a property at the next `property`/`include`, an initializer or a
 * `watch` expression at the first token that cannot continue it. The one
 * real ambiguity is `->`, both C's member arrow and the transition arrow:
 * inside a transition's pattern and guard, `-> NAME` followed by `}`, a name
 * or the end is the transition's target (arrow_is_target, parse_expr.c).
 * Expressions are parse_expr.c's; the token cursor is parser_internal.h. */
#include "parser_internal.h"

static bool type_word(struct vg_token *t, enum vg_type *ty)
{
	static const struct {
		const char *w;
		enum vg_type t;
	} types[] = {
		{ "int", VG_TYPE_INT }, { "int64", VG_TYPE_INT },
		{ "uint", VG_TYPE_UINT }, { "uint64", VG_TYPE_UINT },
		{ "bool", VG_TYPE_BOOL }, { "ptr", VG_TYPE_PTR },
		{ "string", VG_TYPE_STR },
	};

	if (t->kind != T_IDENT)
		return false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(t->str, types[i].w)) {
			*ty = types[i].t;
			return true;
		}
	return false;
}

static bool item_start(struct vg_token *t)
{
	return t->kind == T_EOF || is_word(t, "property") ||
	       is_word(t, "include") || is_word(t, "param") ||
	       is_word(t, "fast");
}

static void parse_slice(struct parser *p, struct vg_prop_ast *pr)
{
	struct vg_token *t = next(p);	/* slice */

	if (pr->sliced)
		vg_ld_error(p->ld, t->loc, "second 'slice on' in property %s, expected one list of slice parameters (first at line %d)",
			    pr->name, pr->slice_loc.line);
	pr->sliced = true;
	pr->slice_loc = t->loc;
	expect_word(p, "on", "'on' after 'slice'");
	do {
		struct vg_param_ast *pa;
		enum vg_type ty = VG_TYPE_INT;

		if (type_word(cur(p), &ty) && peek(p, 1)->kind == T_IDENT)
			next(p);
		t = expect(p, T_IDENT, "a slice parameter name");
		if (pr->nparams == VG_MAX_PARAMS)
			vg_ld_error(p->ld, t->loc, "too many slice parameters, expected at most %d",
				    VG_MAX_PARAMS);
		pa = &pr->params[pr->nparams++];
		pa->name = t->str;
		pa->loc = t->loc;
		pa->type = ty;
	} while (accept(p, T_COMMA));
}

/* One name declared among a property's variables. */
static struct vg_var_ast *new_var(struct parser *p, struct vg_prop_ast *pr,
				  const char *what, enum vg_type ty)
{
	struct vg_token *t = expect(p, T_IDENT, what);
	struct vg_var_ast *v = VG_PUSH(p->ld, pr->vars, pr->nvars, pr->capvars);

	v->name = t->str;
	v->loc = t->loc;
	v->type = ty;
	return v;
}

static void parse_vars(struct parser *p, struct vg_prop_ast *pr, bool global)
{
	enum vg_type ty;

	if (!type_word(cur(p), &ty))
		unexpected(p, "a type (int, int64, uint, uint64, bool, ptr, string) after 'global'");
	next(p);
	do {
		struct vg_var_ast *v = new_var(p, pr, "a variable name", ty);

		v->global = global;
		if (accept(p, T_ASSIGN))
			v->init = vg_parse_expr(p);
	} while (accept(p, T_COMMA));
}

/* clock c, d: per-slice clocks (docs/LANGUAGE.md, Time) */
static void parse_clocks(struct parser *p, struct vg_prop_ast *pr)
{
	next(p);
	do
		new_var(p, pr, "a clock name", VG_TYPE_INT)->clock = true;
	while (accept(p, T_COMMA));
}

static void parse_evdecl(struct parser *p, struct vg_prop_ast *pr)
{
	struct vg_evdecl *d;
	struct vg_token *t;
	bool creation = is_word(cur(p), "creation");

	if (creation)
		next(p);
	next(p);	/* event */
	t = expect(p, T_IDENT, "an event name after 'event'");
	d = VG_PUSH(p->ld, pr->evdecls, pr->nevdecls, pr->capevdecls);
	d->creation = creation;
	d->name = t->str;
	d->loc = t->loc;
	expect(p, T_LPAREN, "'(' after the event name");
	if (cur(p)->kind != T_RPAREN)
		do {
			t = expect(p, T_IDENT, "a field name");
			if (d->nfields == VG_MAX_FIELDS)
				vg_ld_error(p->ld, t->loc, "too many event fields, expected at most %d",
					    VG_MAX_FIELDS);
			*VG_PUSH(p->ld, d->fields, d->nfields, d->capfields) =
				t->str;
		} while (accept(p, T_COMMA));
	expect(p, T_RPAREN, "',' or ')' after an event field");
}

/* `(a, _, b)`: positional names; a prefix of the fields is enough. */
static void parse_names(struct parser *p, struct vg_pattern *pat, int max)
{
	expect(p, T_LPAREN, "'(' before the parameters");
	if (cur(p)->kind != T_RPAREN)
		do {
			bool deref = accept(p, T_STAR);
			struct vg_token *t = expect(p, T_IDENT, deref
				? "a name after '*'" : "a parameter name, '*name' or '_'");
			struct vg_pname *n;

			if (pat->nnames == max)
				vg_ld_error(p->ld, t->loc, "too many parameters, expected at most %d",
					    max);
			n = VG_PUSH(p->ld, pat->names, pat->nnames,
				    pat->capnames);
			n->name = strcmp(t->str, "_") ? t->str : NULL;
			n->loc = t->loc;
			n->deref = deref;
			if (deref && !n->name)
				vg_ld_error(p->ld, t->loc, "'*_' names nothing, expected '*name' or '_'");
		} while (accept(p, T_COMMA));
	expect(p, T_RPAREN, "',' or ')' after a parameter");
}

/* `outside f, g` after a pattern, when there: into outside[] */
static void parse_outside(struct parser *p, struct vg_pname *outside,
			  int *noutside)
{
	if (!is_word(cur(p), "outside"))
		return;
	next(p);
	do {
		struct vg_loc at;
		char *f = vg_parse_func_name(p, &at, "a function name after 'outside'");

		if (*noutside == VG_WATCH_OUTSIDE)
			vg_ld_error(p->ld, at, "too many functions after 'outside', expected at most %d",
				    VG_WATCH_OUTSIDE);
		if (strlen(f) >= sizeof(((struct vg_event *)0)->outside[0]))
			vg_ld_error(p->ld, at, "function name too long after 'outside', expected at most %zu characters",
				    sizeof(((struct vg_event *)0)->outside[0]) - 1);
		outside[*noutside].name = f;
		outside[(*noutside)++].loc = at;
	} while (accept(p, T_COMMA));
}

/* The canonical text of a watched location, with, when count is not
 * NULL, its `@ n` (n elements from p, as gdb's artificial arrays) and its
 * `outside f, g` (into outside[], when not NULL): events and `watch`
 * reactions name locations by it. */
static char *watch_text(struct parser *p, struct vg_expr *e,
			struct vg_expr **count, struct vg_pname *outside,
			int *noutside)
{
	char *t = vg_expr_text(&p->ld->arena, e), *n, *both;

	if (!t)
		vg_ld_oom(p->ld);
	if (count)
		*count = NULL;
	if (!count)
		return t;
	if (cur(p)->kind == T_AT) {
		next(p);
		*count = vg_parse_unary(p);
		n = vg_expr_text(&p->ld->arena, *count);
		both = n ? vg_arena_alloc(&p->ld->arena,
					  strlen(t) + strlen(n) + 4) : NULL;
		if (!both)
			vg_ld_oom(p->ld);
		sprintf(both, "%s @ %s", t, n);
		t = both;
	}
	/* `outside f, g`: not the writes those functions make (an
	 * allocator's own bookkeeping in the blocks it manages); a `watch`
	 * reaction names the event's location with them */
	struct vg_pname mine[VG_WATCH_OUTSIDE];
	int nmine = 0;

	if (!outside) {
		outside = mine;
		noutside = &nmine;
	}
	parse_outside(p, outside, noutside);
	for (int i = 0; i < *noutside; i++) {
		both = vg_arena_alloc(&p->ld->arena,
				      strlen(t) + strlen(outside[i].name) + 12);
		if (!both)
			vg_ld_oom(p->ld);
		sprintf(both, "%s%s%s", t, i ? ", " : " outside ",
			outside[i].name);
		t = both;
	}
	return t;
}

static void parse_pattern(struct parser *p, struct vg_pattern *pat)
{
	static const struct {
		const char *w;
		enum vg_event_kind k;
	} kinds[] = {
		{ "before", VG_EV_BEFORE }, { "after", VG_EV_AFTER },
		{ "write", VG_EV_WRITE }, { "read", VG_EV_READ },
		{ "access", VG_EV_ACCESS }, { "change", VG_EV_CHANGE },
		{ "syscall", VG_EV_SYSCALL }, { "exit", VG_EV_EXIT },
		{ "signal", VG_EV_SIGNAL },
		{ "thread_start", VG_EV_THREAD_START },
		{ "thread_exit", VG_EV_THREAD_EXIT },
	};
	struct vg_token *t = cur(p);
	size_t i;

	if (t->kind != T_IDENT)
		unexpected(p, "a transition (before, after, write, read, access, change, syscall, exit, signal, thread_start, thread_exit or a declared event) or '}'");
	pat->loc = pat->name_loc = t->loc;
	pat->name = "";
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(t->str, kinds[i].w))
			break;
	/* `name(` is a declared event even if name is a keyword whose own
	 * form cannot go on with '(' (before, after, syscall, thread_*);
	 * `change (a + b)`, `write (*p)` and `exit(code)` keep their meaning */
	if (i == sizeof(kinds) / sizeof(kinds[0]) ||
	    (peek(p, 1)->kind == T_LPAREN &&
	     (kinds[i].k == VG_EV_BEFORE || kinds[i].k == VG_EV_AFTER ||
	      kinds[i].k == VG_EV_SYSCALL || kinds[i].k == VG_EV_THREAD_START ||
	      kinds[i].k == VG_EV_THREAD_EXIT))) {
		if (peek(p, 1)->kind != T_LPAREN)
			unexpected(p, "a transition (before, after, write, read, access, change, syscall, exit, signal, thread_start, thread_exit or a declared event followed by '(')");
		pat->kind = VG_EV_NAMED;
		pat->name = next(p)->str;
		parse_names(p, pat, VG_MAX_FIELDS);
		return;
	}
	pat->kind = kinds[i].k;
	next(p);
	switch (pat->kind) {
	case VG_EV_BEFORE:
	case VG_EV_AFTER:
	case VG_EV_SYSCALL:
		if (pat->kind == VG_EV_SYSCALL) {
			t = expect(p, T_IDENT, "a system call name");
			pat->name = t->str;
			pat->name_loc = t->loc;
		} else {	/* C or C++ (parse_name.c) */
			const char *param = cur(p)->param;

			pat->name = vg_parse_func_name(p, &pat->name_loc,
						       "a function name");
			/* `$alloc` alone, not `$alloc::x` */
			pat->param = cur(p)->kind == T_LPAREN ? param : NULL;
		}
		parse_names(p, pat, VG_MAX_FIELDS);
		if (pat->kind == VG_EV_AFTER && is_word(cur(p), "returns")) {
			next(p);
			t = expect(p, T_IDENT, "a name for the return value after 'returns'");
			pat->has_ret = true;
			pat->ret.name = strcmp(t->str, "_") ? t->str : NULL;
			pat->ret.loc = t->loc;
		}
		/* calls made from inside f, g are f's and g's business */
		if (pat->kind != VG_EV_SYSCALL)
			parse_outside(p, pat->outside, &pat->noutside);
		break;
	case VG_EV_WRITE:
	case VG_EV_READ:
	case VG_EV_ACCESS:
	case VG_EV_CHANGE: {
		struct vg_expr *e;

		pat->name_loc = cur(p)->loc;
		e = pat->kind == VG_EV_CHANGE ? vg_parse_expr(p) : vg_parse_unary(p);
		if (pat->kind != VG_EV_CHANGE && e->kind != EX_NAME &&
		    e->kind != EX_GLOBAL && e->kind != EX_MEMBER &&
		    !(e->kind == EX_UNARY && e->op == T_STAR))
			vg_ld_error(p->ld, e->start, "cannot watch this expression, expected a variable, *p or p->field");
		pat->wexpr = e;
		pat->name = watch_text(p, e, pat->kind != VG_EV_CHANGE
					      ? &pat->wcount : NULL,
				       pat->outside, &pat->noutside);
		break;
	}
	case VG_EV_EXIT:
	case VG_EV_SIGNAL:
		parse_names(p, pat, 1);
		break;
	default:
		break;
	}
}

static void parse_stmt(struct parser *p, struct vg_trans_ast *tr)
{
	struct vg_token *t = expect(p, T_IDENT, "a variable to assign or '}'");
	struct vg_stmt *s = VG_PUSH(p->ld, tr->stmts, tr->nstmts, tr->capstmts);
	struct vg_token *op = cur(p);

	if (!strcmp(t->str, "reset") && op->kind == T_IDENT) {
		/* `reset c`: a clock starts again from 0 */
		next(p);
		s->name = op->str;
		s->loc = op->loc;
		s->op = T_EOF;
		s->op_loc = t->loc;
		s->reset = true;
		if (cur(p)->kind != T_RBRACE)
			expect(p, T_SEMI, "';' after the statement");
		return;
	}
	s->name = t->str;
	s->loc = t->loc;
	s->op = op->kind;
	s->op_loc = op->loc;
	switch (op->kind) {
	case T_INC:
	case T_DEC:
		next(p);
		break;
	case T_ASSIGN: case T_ADDEQ: case T_SUBEQ: case T_MULEQ:
	case T_DIVEQ: case T_MODEQ: case T_ANDEQ: case T_OREQ:
	case T_XOREQ: case T_SHLEQ: case T_SHREQ:
		next(p);
		s->value = vg_parse_expr(p);
		break;
	default:
		unexpected(p, "an assignment ('=', '+=', ..., '++' or '--')");
	}
	/* the last statement of a block may omit its ';' */
	if (cur(p)->kind != T_RBRACE)
		expect(p, T_SEMI, "';' after the statement");
}

static void parse_trans(struct parser *p, struct vg_state_ast *st)
{
	struct vg_trans_ast *tr = VG_PUSH(p->ld, st->trans, st->ntrans,
					  st->captrans);
	struct vg_token *t;

	p->in_trans = true;
	/* `creation EVENT`: not an event named creation, `creation(...)` */
	if (is_word(cur(p), "creation") && peek(p, 1)->kind == T_IDENT) {
		next(p);
		tr->creation = true;
	}
	parse_pattern(p, &tr->pat);
	if (is_word(cur(p), "when")) {
		next(p);
		tr->guard = vg_parse_expr(p);
	}
	p->in_trans = false;
	if (accept(p, T_LBRACE)) {
		while (cur(p)->kind != T_RBRACE)
			parse_stmt(p, tr);
		next(p);
	}
	expect(p, T_ARROW, tr->guard || tr->nstmts
		   ? "'->' and the target state"
		   : "'when', '{' or '->' after the event");
	t = expect(p, T_IDENT, "a target state name after '->'");
	tr->to = t->str;
	tr->to_loc = t->loc;
}

static void parse_state(struct parser *p, struct vg_prop_ast *pr)
{
	struct vg_state_ast *st;
	struct vg_token *t;

	next(p);	/* state */
	t = expect(p, T_IDENT, "a state name after 'state'");
	st = VG_PUSH(p->ld, pr->states, pr->nstates, pr->capstates);
	st->name = t->str;
	st->loc = t->loc;
	st->kind = VG_STATE_ACCEPTING;
	if (is_word(cur(p), "accepting")) {
		next(p);
	} else if (is_word(cur(p), "nonaccepting")) {
		next(p);
		st->kind = VG_STATE_NONACCEPTING;
	} else if (is_word(cur(p), "violation")) {
		next(p);
		st->kind = VG_STATE_VIOLATION;
	}
	if (is_word(cur(p), "within")) {
		/* within LIMIT else [{ stmts }] -> target */
		struct vg_trans_ast *to = vg_ld_alloc(p->ld, sizeof(*to));

		t = next(p);
		to->pat.kind = VG_EV_TIMEOUT;
		to->pat.loc = t->loc;
		to->pat.name = "timeout";
		p->in_trans = true;	/* `within 1s -> s`: no member */
		to->guard = vg_parse_expr(p);
		p->in_trans = false;
		expect_word(p, "else", "'else' and where the slice goes when the time runs out ('else -> STATE')");
		if (accept(p, T_LBRACE)) {
			while (cur(p)->kind != T_RBRACE)
				parse_stmt(p, to);
			next(p);
		}
		expect(p, T_ARROW, "'->' and the state a timeout goes to");
		t = expect(p, T_IDENT, "a target state name after '->'");
		to->to = t->str;
		to->to_loc = t->loc;
		st->timeout = to;
	}
	if (!accept(p, T_LBRACE))
		return;
	while (!accept(p, T_RBRACE))
		parse_trans(p, st);
}

static void parse_reaction(struct parser *p, struct vg_prop_ast *pr)
{
	static const struct {
		const char *w;
		enum vg_action_kind k;
	} acts[] = {
		{ "log", VG_ACT_LOG }, { "stop", VG_ACT_STOP },
		{ "gdb", VG_ACT_GDB }, { "backtrace", VG_ACT_BACKTRACE },
		{ "checkpoint", VG_ACT_CHECKPOINT },
		{ "restore", VG_ACT_RESTORE }, { "watch", VG_ACT_WATCH },
		{ "unwatch", VG_ACT_UNWATCH }, { "exec", VG_ACT_EXEC },
		{ "kill", VG_ACT_KILL },
	};
	struct vg_reaction_ast *r = VG_PUSH(p->ld, pr->reactions,
					    pr->nreactions, pr->capreactions);
	struct vg_token *t = next(p);	/* on */

	r->loc = t->loc;
	if (is_word(cur(p), "enter"))
		r->on_enter = true;
	else if (!is_word(cur(p), "leave"))
		unexpected(p, "'enter' or 'leave' after 'on'");
	next(p);
	t = expect(p, T_IDENT, "a state name");
	r->state = t->str;
	r->state_loc = t->loc;
	expect(p, T_COLON, "':' after the state name");
	do {
		struct vg_action_ast *a;
		size_t i;

		t = cur(p);
		for (i = 0; t->kind == T_IDENT && i < sizeof(acts) / sizeof(acts[0]); i++)
			if (!strcmp(t->str, acts[i].w))
				break;
		if (t->kind != T_IDENT || i == sizeof(acts) / sizeof(acts[0]))
			unexpected(p, "an action (log, stop, gdb, backtrace, checkpoint, restore, watch, unwatch, exec, kill)");
		next(p);
		a = VG_PUSH(p->ld, r->actions, r->nactions, r->capactions);
		a->kind = acts[i].k;
		a->loc = t->loc;
		if (a->kind == VG_ACT_LOG || a->kind == VG_ACT_EXEC) {
			a->arg = expect(p, T_STRING, a->kind == VG_ACT_LOG
					? "a format string after 'log'"
					: "a command string after 'exec'")->str;
		} else if (a->kind == VG_ACT_WATCH || a->kind == VG_ACT_UNWATCH) {
			struct vg_expr *count;

			a->arg = watch_text(p, vg_parse_expr(p), &count, NULL,
					    NULL);
		}
	} while (accept(p, T_COMMA));
}

static void parse_property(struct parser *p)
{
	struct vg_prop_ast *pr;
	struct vg_token *t = next(p);	/* property */

	pr = VG_PUSH(p->ld, p->ld->props, p->ld->nprops, p->ld->capprops);
	pr->loc = t->loc;
	pr->name = expect(p, T_IDENT, "a property name after 'property'")->str;
	pr->desc = "";
	if (cur(p)->kind == T_STRING)
		pr->desc = next(p)->str;
	for (;;) {
		enum vg_type ty;

		t = cur(p);
		if (item_start(t))
			return;
		if (is_word(t, "slice"))
			parse_slice(p, pr);
		else if (is_word(t, "global")) {
			next(p);
			parse_vars(p, pr, true);
		} else if (type_word(t, &ty))
			parse_vars(p, pr, false);
		else if (is_word(t, "event") ||
			 (is_word(t, "creation") && is_word(peek(p, 1), "event")))
			parse_evdecl(p, pr);
		else if (is_word(t, "clock") && peek(p, 1)->kind == T_IDENT)
			parse_clocks(p, pr);
		else if (is_word(t, "state"))
			parse_state(p, pr);
		else if (is_word(t, "on"))
			parse_reaction(p, pr);
		else
			unexpected(p, "slice, a variable declaration, clock, event, state, on, property, param or include");
	}
}

void vg_parse_src(struct vg_ld *ld, int src)
{
	/* ld->srcs may move while includes load: keep what is needed */
	const char *name = ld->srcs[src].name;
	struct parser p = { .ld = ld };

	p.toks = vg_lex(ld, name, ld->srcs[src].text, ld->srcs[src].len,
			&p.ntok);
	while (cur(&p)->kind != T_EOF) {
		struct vg_token *t = cur(&p);

		if (is_word(t, "include")) {
			next(&p);
			t = expect(&p, T_STRING, "a file name in quotes after 'include'");
			vg_ld_include(ld, t->str, &t->loc);
		} else if (is_word(t, "property")) {
			parse_property(&p);
		} else if (is_word(t, "param")) {
			/* param NAME = VALUE (a name, a number or a string) */
			struct vg_token *n, *v;

			next(&p);
			n = expect(&p, T_IDENT, "a parameter name after 'param'");
			expect(&p, T_ASSIGN, "'=' and the parameter's default value");
			v = cur(&p);
			if (v->kind != T_IDENT && v->kind != T_INT &&
			    v->kind != T_STRING)
				unexpected(&p, "a name, a number or a string as the parameter's default value");
			vg_param_declare(ld, &p.params, n, next(&p));
		} else if (is_word(t, "fast")) {
			/* fast NAME-OR-"PATTERN", ...: the in-process tier */
			next(&p);
			do {
				struct vg_token *f = cur(&p);
				const char **slot;

				if (f->kind != T_IDENT && f->kind != T_STRING)
					unexpected(&p, "a function name, or a pattern in quotes such as \"sqlite3_*\", after 'fast'");
				next(&p);
				slot = VG_PUSH(ld, ld->fast, ld->nfast, ld->capfast);
				*slot = f->str;
			} while (accept(&p, T_COMMA));
		} else {
			unexpected(&p, "'property', 'param', 'fast' or 'include'");
		}
	}
}
