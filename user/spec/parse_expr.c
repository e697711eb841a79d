/* The property language's expressions: guards, updates, initializers and
 * watched locations, C's operators and precedence (docs/LANGUAGE.md), into
 * struct vg_expr trees of bounded height. */
#include "parser_internal.h"

static struct vg_expr *node(struct parser *p, enum vg_ex kind,
			    struct vg_loc loc, struct vg_expr *a,
			    struct vg_expr *b, struct vg_expr *c)
{
	struct vg_expr *e = vg_ld_alloc(p->ld, sizeof(*e));
	int h = 0;

	e->kind = kind;
	e->loc = e->start = loc;
	e->a = a;
	e->b = b;
	e->c = c;
	if (a) {
		h = a->height;
		e->start = a->start;
	}
	if (b && b->height > h)
		h = b->height;
	if (c && c->height > h)
		h = c->height;
	e->height = h + 1;
	/* left-leaning chains (a+b+c+...) grow without recursion in the
	 * parser; the walks over the tree recurse, so bound the height */
	if (e->height > VG_MAX_EXPR_HEIGHT)
		vg_ld_error(p->ld, loc, "expression too complex, expected at most %d nested operations",
			    VG_MAX_EXPR_HEIGHT);
	return e;
}

static void enter(struct parser *p)
{
	if (++p->depth > VG_MAX_EXPR_HEIGHT)
		vg_ld_error(p->ld, cur(p)->loc, "expression nested too deeply, expected at most %d levels",
			    VG_MAX_EXPR_HEIGHT);
}

/* `-> NAME` ends a transition's pattern or guard when what follows NAME
 * cannot continue an expression: the next transition (a name), the end of
 * the state (`}`) or of the file. `p->next { ... } -> s` and `p->a.b`
 * therefore stay member accesses. */
static bool arrow_is_target(struct parser *p)
{
	enum vg_tok after = peek(p, 2)->kind;

	/* `write q->count when ...`: no transition starts with `when` */
	if (after == T_IDENT && !strcmp(peek(p, 2)->str, "when"))
		return false;
	return p->in_trans && peek(p, 1)->kind == T_IDENT &&
	       (after == T_RBRACE || after == T_IDENT || after == T_EOF ||
		after == T_ERROR);
}

/* valid(p, n), block_length(p): at '(' after the name t */
static struct vg_expr *parse_mem_pred(struct parser *p, struct vg_token *t)
{
	bool saved = p->in_trans;
	struct vg_expr *e, *a, *b = NULL;
	int nargs, pred = vg_mem_pred_find(t->str, &nargs);

	next(p);
	p->in_trans = false;
	a = vg_parse_expr(p);
	if (nargs == 2) {
		expect(p, T_COMMA, nargs == 2 && pred == VG_MEM_STRLEN_AT
		       ? "',' and the most bytes to read, as in strlen_at(p, 256)"
		       : "',' and a length in bytes, as in valid(p, n)");
		b = vg_parse_expr(p);
	}
	p->in_trans = saved;
	expect(p, T_RPAREN, nargs == 2 ? "')' after the two arguments"
				       : "')': it takes one pointer");
	e = node(p, EX_MEMPRED, t->loc, a, b, NULL);
	e->start = t->loc;
	e->ival = pred;
	e->str = t->str;
	return e;
}

static struct vg_expr *parse_primary(struct parser *p)
{
	struct vg_token *t = cur(p);
	struct vg_expr *e;

	switch (t->kind) {
	case T_INT:
		next(p);
		e = node(p, EX_INT, t->loc, NULL, NULL, NULL);
		e->ival = (int64_t)t->ival;
		e->unsig = t->ival > INT64_MAX;
		return e;
	case T_STRING:
		next(p);
		e = node(p, EX_STR, t->loc, NULL, NULL, NULL);
		e->str = t->str;
		return e;
	case T_IDENT:
		next(p);
		if (!strcmp(t->str, "true") || !strcmp(t->str, "false")) {
			e = node(p, EX_BOOL, t->loc, NULL, NULL, NULL);
			e->ival = t->str[0] == 't';
		} else if (!strcmp(t->str, "null")) {
			e = node(p, EX_NULL, t->loc, NULL, NULL, NULL);
		} else if (!strcmp(t->str, "str") &&
			   cur(p)->kind == T_LPAREN) {
			bool saved = p->in_trans;

			next(p);
			p->in_trans = false;
			e = node(p, EX_STRREAD, t->loc, vg_parse_expr(p), NULL,
				 NULL);
			p->in_trans = saved;
			expect(p, T_RPAREN, "')' to close 'str('");
		} else if (cur(p)->kind == T_LPAREN &&
			   vg_mem_pred_find(t->str, NULL) >= 0) {
			e = parse_mem_pred(p, t);
		} else {
			e = node(p, EX_NAME, t->loc, NULL, NULL, NULL);
			e->str = t->str;
		}
		return e;
	case T_COLONCOLON:	/* ::name, the target's global */
		next(p);
		e = node(p, EX_GLOBAL, t->loc, NULL, NULL, NULL);
		e->str = expect(p, T_IDENT, "a global variable's name after '::'")->str;
		return e;
	case T_LPAREN: {
		next(p);
		bool saved = p->in_trans;

		/* inside parentheses an arrow is always a member access */
		p->in_trans = false;
		e = vg_parse_expr(p);
		p->in_trans = saved;
		expect(p, T_RPAREN, "')' to close the '('");
		return e;
	}
	default:
		unexpected(p, "an expression");
	}
}

static struct vg_expr *parse_postfix(struct parser *p)
{
	struct vg_expr *e = parse_primary(p);

	for (;;) {
		struct vg_token *t = cur(p);
		struct vg_expr *m;

		if (t->kind == T_ARROW && arrow_is_target(p))
			break;
		if (t->kind != T_ARROW && t->kind != T_DOT)
			break;
		next(p);
		m = node(p, EX_MEMBER, t->loc, e, NULL, NULL);
		m->arrow = t->kind == T_ARROW;
		m->str = expect(p, T_IDENT, t->kind == T_ARROW
				? "a field name after '->'"
				: "a field name after '.'")->str;
		e = m;
	}
	return e;
}

struct vg_expr *vg_parse_unary(struct parser *p)
{
	struct vg_token *t = cur(p);
	struct vg_expr *e;

	if (t->kind != T_MINUS && t->kind != T_BANG && t->kind != T_TILDE &&
	    t->kind != T_STAR)
		return parse_postfix(p);
	enter(p);
	next(p);
	e = vg_parse_unary(p);
	p->depth--;
	if (t->kind == T_MINUS && e->kind == EX_INT) {
		/* so that -5 is one PUSH and INT64_MIN can be written */
		e->unsig = (uint64_t)e->ival > (uint64_t)INT64_MAX + 1;
		e->ival = (int64_t)(0 - (uint64_t)e->ival);
		e->loc = e->start = t->loc;
		return e;
	}
	e = node(p, EX_UNARY, t->loc, e, NULL, NULL);
	e->start = t->loc;
	e->op = t->kind;
	return e;
}

/* Binary operators by C precedence, loosest first. */
static const enum vg_tok levels[][5] = {
	{ T_OROR },
	{ T_ANDAND },
	{ T_PIPE },
	{ T_CARET },
	{ T_AMP },
	{ T_EQEQ, T_NE },
	{ T_LT, T_LE, T_GT, T_GE },
	{ T_SHL, T_SHR },
	{ T_PLUS, T_MINUS },
	{ T_STAR, T_SLASH, T_PERCENT },
};
#define NLEVELS (int)(sizeof(levels) / sizeof(levels[0]))

static struct vg_expr *parse_binary(struct parser *p, int level)
{
	struct vg_expr *e;

	if (level == NLEVELS)
		return vg_parse_unary(p);
	e = parse_binary(p, level + 1);
	for (;;) {
		struct vg_token *t = cur(p);
		bool match = false;

		for (int i = 0; i < 5 && levels[level][i]; i++)
			match |= t->kind == levels[level][i];
		if (!match)
			return e;
		next(p);
		e = node(p, EX_BINARY, t->loc, e, parse_binary(p, level + 1),
			 NULL);
		e->op = t->kind;
	}
}

struct vg_expr *vg_parse_expr(struct parser *p)
{
	struct vg_expr *c, *e;
	struct vg_token *q;

	enter(p);
	c = parse_binary(p, 0);
	q = cur(p);
	if (q->kind == T_QUESTION) {
		struct vg_expr *a;

		next(p);
		a = vg_parse_expr(p);
		expect(p, T_COLON, "':' of the '?:'");
		e = node(p, EX_COND, q->loc, c, a, vg_parse_expr(p));
		c = e;
	}
	p->depth--;
	return c;
}

/* ---- properties ------------------------------------------------------- */
