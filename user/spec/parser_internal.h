/* What the two halves of the parser share (parser.c: files, properties,
 * states and patterns; parse_expr.c: expressions): the parser's state and
 * its cursor over the tokens. Internal to user/spec/. */
#ifndef VIGIL_SPEC_PARSER_INTERNAL_H
#define VIGIL_SPEC_PARSER_INTERNAL_H

#include "spec_internal.h"

#include <stdio.h>
#include <string.h>

struct parser {
	struct vg_ld *ld;
	struct vg_token *toks;
	int ntok, pos;
	int depth;		/* recursion in expressions */
	bool in_trans;		/* pattern or guard: `-> s` may end it */
	struct vg_pscope params;	/* this file's `param`s (params.c) */
};

/* A `$NAME` becomes its value the first time the parser looks at it, so
 * everything below sees a plain name, number or string. */
static inline struct vg_token *peek(struct parser *p, int k)
{
	int i = p->pos + k;
	struct vg_token *t = &p->toks[i < p->ntok ? i : p->ntok - 1];

	if (t->kind == T_PARAM)
		vg_param_subst(p->ld, &p->params, t);
	return t;
}

/* The current token. A lexical error is reported when the parser reaches
 * it, not before, so errors come in source order. */
static inline struct vg_token *cur(struct parser *p)
{
	struct vg_token *t = peek(p, 0);

	if (t->kind == T_ERROR)
		vg_ld_error(p->ld, t->loc, "%s", t->str);
	return t;
}

static inline struct vg_token *next(struct parser *p)
{
	struct vg_token *t = cur(p);

	if (t->kind != T_EOF)
		p->pos++;
	return t;
}

static inline bool is_word(struct vg_token *t, const char *w)
{
	return t->kind == T_IDENT && !strcmp(t->str, w);
}

static inline const char *describe(struct parser *p, struct vg_token *t)
{
	char buf[96];

	switch (t->kind) {
	case T_EOF:
		return "end of file";
	case T_IDENT:
		snprintf(buf, sizeof(buf), "'%.80s'", t->str);
		break;
	case T_INT:
	case T_STRING:
		snprintf(buf, sizeof(buf), "%s %.*s", vg_tok_name(t->kind),
			 (int)(t->len > 40 ? 40 : t->len), t->start);
		break;
	default:
		snprintf(buf, sizeof(buf), "'%s'", vg_tok_name(t->kind));
		break;
	}
	return vg_ld_strndup(p->ld, buf, strlen(buf));
}

_Noreturn static inline void unexpected(struct parser *p, const char *expected)
{
	struct vg_token *t = cur(p);

	vg_ld_error(p->ld, t->loc, "unexpected %s, expected %s",
		    describe(p, t), expected);
}

static inline struct vg_token *expect(struct parser *p, enum vg_tok k,
			       const char *expected)
{
	if (cur(p)->kind != k)
		unexpected(p, expected);
	return next(p);
}

static inline void expect_word(struct parser *p, const char *w, const char *expected)
{
	if (!is_word(cur(p), w))
		unexpected(p, expected);
	next(p);
}

static inline bool accept(struct parser *p, enum vg_tok k)
{
	if (cur(p)->kind != k)
		return false;
	next(p);
	return true;
}

/* parse_expr.c: an expression (binary operators and below), and a unary
 * one (what `write`/`read`/`access` take) */
struct vg_expr *vg_parse_expr(struct parser *p);
struct vg_expr *vg_parse_unary(struct parser *p);

/* parse_name.c: a function's name in a pattern or `outside` clause, C or
 * C++ (`Queue::push`, `"operator new[]"`, `Queue::push(int)`); loc gets
 * where it starts; what is the error's "expected" */
char *vg_parse_func_name(struct parser *p, struct vg_loc *loc,
			       const char *what);

#endif
