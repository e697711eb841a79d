/* Canonical text of an expression. Events on memory (`write q->count`,
 * `change a + b`) are named by it, so two properties that write the same
 * expression with different spacing share one event and one watchpoint. */
#include "spec_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		char *ns;

		while (cap < b->len + n + 1)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

static void put_str_lit(struct buf *b, const char *s)
{
	char c[8];

	put(b, "\"");
	for (; *s; s++) {
		switch (*s) {
		case '\n': put(b, "\\n"); break;
		case '\t': put(b, "\\t"); break;
		case '\r': put(b, "\\r"); break;
		case '\\': put(b, "\\\\"); break;
		case '"': put(b, "\\\""); break;
		default:
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				snprintf(c, sizeof(c), "\\x%02x", (unsigned char)*s);
			else
				snprintf(c, sizeof(c), "%c", *s);
			put(b, c);
		}
	}
	put(b, "\"");
}

/* Operands that are themselves operators get parentheses: the text is
 * unambiguous without the printer knowing precedence. */
static void expr(struct buf *b, const struct vg_expr *e, bool paren)
{
	char num[32];

	paren = paren && (e->kind == EX_BINARY || e->kind == EX_COND);
	if (paren)
		put(b, "(");
	switch (e->kind) {
	case EX_INT:
		if (e->unsig)
			snprintf(num, sizeof(num), "%" PRIu64, (uint64_t)e->ival);
		else
			snprintf(num, sizeof(num), "%" PRId64, e->ival);
		put(b, num);
		break;
	case EX_BOOL:
		put(b, e->ival ? "true" : "false");
		break;
	case EX_NULL:
		put(b, "null");
		break;
	case EX_STR:
		put_str_lit(b, e->str);
		break;
	case EX_NAME:
		put(b, e->str);
		break;
	case EX_UNARY:
		put(b, vg_tok_name(e->op));
		expr(b, e->a, true);
		break;
	case EX_BINARY:
		expr(b, e->a, true);
		put(b, " ");
		put(b, vg_tok_name(e->op));
		put(b, " ");
		expr(b, e->b, true);
		break;
	case EX_COND:
		expr(b, e->a, true);
		put(b, " ? ");
		expr(b, e->b, true);
		put(b, " : ");
		expr(b, e->c, true);
		break;
	case EX_MEMBER:
		/* (*p).x is not *p.x */
		if (e->a->kind == EX_UNARY)
			put(b, "(");
		expr(b, e->a, true);
		if (e->a->kind == EX_UNARY)
			put(b, ")");
		put(b, e->arrow ? "->" : ".");
		put(b, e->str);
		break;
	case EX_GLOBAL:
		put(b, "::");
		put(b, e->str);
		break;
	case EX_STRREAD:
		put(b, "str(");
		expr(b, e->a, false);
		put(b, ")");
		break;
	case EX_MEMPRED:
		put(b, e->str);
		put(b, "(");
		expr(b, e->a, false);
		if (e->b) {
			put(b, ", ");
			expr(b, e->b, false);
		}
		put(b, ")");
		break;
	}
	if (paren)
		put(b, ")");
}

char *vg_expr_text(struct vg_arena *a, const struct vg_expr *e)
{
	struct buf b = { 0 };
	char *s = NULL;

	expr(&b, e, false);
	if (!b.oom)
		s = vg_arena_strndup(a, b.s ? b.s : "", b.len);
	free(b.s);
	return s;
}
