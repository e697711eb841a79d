/* The function name of a `before`/`after` pattern and of an `outside`
 * clause, as C and C++ programmers write it:
 *
 *   fname := STRING [types] | cname [types]
 *   cname := ['::'] part ('::' part)*
 *   part  := NAME | '~' NAME | 'operator' (NAME | an operator token)
 *   types := '(' C++ parameter types ')'    -- only before the pattern's
 *                                              own '(' names ')'
 *
 * `Queue::push(int)(q, v)`: a parenthesised list followed by another is the
 * overload's parameter types, the last one the pattern's names, so the
 * pattern's names keep their place and meaning. What needs more than these
 * tokens (templates, `operator delete[]`, `operator()`) is quoted:
 * `"Box<int>::get"`, `"operator delete[]"(p)`. The result is one string,
 * the name with its types when given ("Queue::push(int)"), which
 * user/sym/cxxnames.c matches against the demangled symbol tables. */
#include "parser_internal.h"

static void append(struct parser *p, char **buf, size_t *len, size_t *cap,
		   const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = (*len + n + 1) * 2;
		char *nb = vg_ld_alloc(p->ld, ncap);

		if (*len)
			memcpy(nb, *buf, *len);
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = 0;
}

/* The index of the token that closes the '(' at p->pos + k, or -1. */
static int closing_paren(struct parser *p, int k)
{
	int depth = 0;

	for (int i = p->pos + k; i < p->ntok; i++) {
		enum vg_tok t = p->toks[i].kind;

		if (t == T_EOF || t == T_ERROR)
			return -1;
		if (t == T_LPAREN)
			depth++;
		else if (t == T_RPAREN && --depth == 0)
			return i;
	}
	return -1;
}

/* An operator's own tokens after `operator`: `==`, `<<`, `+=`, `->`... */
static bool operator_token(enum vg_tok t)
{
	switch (t) {
	case T_LPAREN: case T_RPAREN: case T_LBRACE: case T_RBRACE:
	case T_COMMA: case T_SEMI: case T_COLON: case T_COLONCOLON:
	case T_DOT: case T_QUESTION: case T_AT:
	case T_EOF: case T_ERROR: case T_IDENT: case T_INT: case T_STRING:
	case T_PARAM:
		return false;
	default:
		return true;
	}
}

char *vg_parse_func_name(struct parser *p, struct vg_loc *loc,
			       const char *what)
{
	struct vg_token *t = cur(p);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int close;

	*loc = t->loc;
	if (t->kind == T_STRING) {
		next(p);
		if (!*t->str)
			vg_ld_error(p->ld, t->loc, "empty function name, expected the name in the quotes");
		append(p, &buf, &len, &cap, t->str, strlen(t->str));
	} else {
		if (accept(p, T_COLONCOLON))
			append(p, &buf, &len, &cap, "::", 2);
		for (;;) {
			if (accept(p, T_TILDE))
				append(p, &buf, &len, &cap, "~", 1);
			t = cur(p);
			if (t->kind != T_IDENT)
				unexpected(p, len ? "a name after '::' or '~'" : what);
			next(p);
			append(p, &buf, &len, &cap, t->str, strlen(t->str));
			if (!strcmp(t->str, "operator") &&
			    (cur(p)->kind == T_IDENT ||
			     operator_token(cur(p)->kind))) {
				/* operator new, operator bool, operator== */
				t = next(p);
				if (t->kind == T_IDENT)
					append(p, &buf, &len, &cap, " ", 1);
				append(p, &buf, &len, &cap,
				       t->kind == T_IDENT ? t->str : t->start,
				       t->kind == T_IDENT ? strlen(t->str)
							  : t->len);
				break;
			}
			if (!accept(p, T_COLONCOLON))
				break;
			append(p, &buf, &len, &cap, "::", 2);
		}
	}
	/* `(types)` when the pattern's own `(names)` follows */
	if (cur(p)->kind == T_LPAREN && (close = closing_paren(p, 0)) >= 0 &&
	    close + 1 < p->ntok && p->toks[close + 1].kind == T_LPAREN) {
		const char *from = cur(p)->start + 1,
			   *to = p->toks[close].start;

		append(p, &buf, &len, &cap, "(", 1);
		append(p, &buf, &len, &cap, from, (size_t)(to - from));
		append(p, &buf, &len, &cap, ")", 1);
		p->pos = close + 1;
	}
	if (len >= 200)
		vg_ld_error(p->ld, *loc, "function name too long (%zu characters), expected at most 199",
			    len);
	return buf;
}
