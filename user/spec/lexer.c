/* Tokens of the property language.
 *
 * No word is reserved: `before write(fd, buf, n)` must be able to name a
 * function called write, so keywords are plain identifiers and the parser
 * gives them meaning by position.
 *
 * The whole file is tokenized up front, but a lexical error does not stop
 * the lexer's caller at once: it becomes a T_ERROR token at the end of the
 * array, so that errors are reported in source order (a syntax error on
 * line 3 before a bad escape on line 50). */
#include "spec_internal.h"

#include <stdio.h>
#include <string.h>

struct lexer {
	struct vg_ld *ld;
	const char *file;
	const char *text, *p, *end;
	const char *line_start;
	int line;
	struct vg_token *toks;
	int ntok, cap;
};

static struct vg_loc here(struct lexer *lx, const char *at)
{
	return (struct vg_loc){ lx->file, lx->line, (int)(at - lx->line_start) + 1 };
}

/* Record the error as the last token; returns false so callers can stop. */
static bool lex_fail(struct lexer *lx, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool lex_fail(struct lexer *lx, const char *at, const char *fmt, ...)
{
	struct vg_token *t = VG_PUSH(lx->ld, lx->toks, lx->ntok, lx->cap);
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->kind = T_ERROR;
	t->loc = here(lx, at);
	t->start = at;
	t->str = vg_ld_strndup(lx->ld, buf, strlen(buf));
	return false;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const char *show(char c, char *buf)
{
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "'\\x%02x'", (unsigned char)c);
	return buf;
}

/* One character of a string or char literal at lx->p; escapes decoded.
 * open is the opening quote: an unterminated literal is reported there. */
static bool lex_char(struct lexer *lx, const char *open, int *out)
{
	const char *at = lx->p;
	char quote = *open;

	if (lx->p >= lx->end || *lx->p == '\n')
		return lex_fail(lx, open, "unterminated %s literal, expected %c before the end of the line",
				quote == '"' ? "string" : "character",
				quote);
	if (*lx->p != '\\') {
		*out = (unsigned char)*lx->p++;
		return true;
	}
	lx->p++;
	if (lx->p >= lx->end)
		return lex_fail(lx, open, "unterminated %s literal, expected %c before the end of the line",
				quote == '"' ? "string" : "character", quote);
	switch (*lx->p++) {
	case 'n': *out = '\n'; return true;
	case 't': *out = '\t'; return true;
	case 'r': *out = '\r'; return true;
	case '0': *out = 0; return true;
	case '\\': *out = '\\'; return true;
	case '"': *out = '"'; return true;
	case '\'': *out = '\''; return true;
	case 'x': {
		int hi = lx->p < lx->end ? hexval(lx->p[0]) : -1;
		int lo = lx->p + 1 < lx->end ? hexval(lx->p[1]) : -1;

		if (hi < 0 || lo < 0)
			return lex_fail(lx, at, "bad escape '\\x', expected two hex digits after it");
		lx->p += 2;
		*out = hi * 16 + lo;
		return true;
	}
	default:
		return lex_fail(lx, at, "unknown escape '\\%c', expected one of \\n \\t \\r \\\\ \\\" \\' \\xHH",
				lx->p[-1] >= 0x21 && lx->p[-1] < 0x7f ? lx->p[-1] : '?');
	}
}

static bool lex_string(struct lexer *lx, struct vg_token *t)
{
	/* decoded text is never longer than the source */
	const char *open = lx->p, *close = lx->p + 1;
	char *buf;
	size_t n = 0;

	while (close < lx->end && *close != '"' && *close != '\n')
		close += *close == '\\' && close + 1 < lx->end ? 2 : 1;
	buf = vg_ld_alloc(lx->ld, (size_t)(close - lx->p) + 1);
	lx->p++;
	for (;;) {
		const char *at = lx->p;
		int c;

		if (lx->p < lx->end && *lx->p == '"') {
			lx->p++;
			break;
		}
		if (!lex_char(lx, open, &c))
			return false;
		if (c == 0)
			return lex_fail(lx, at, "NUL character in a string, expected printable text");
		buf[n++] = (char)c;
	}
	buf[n] = 0;
	t->kind = T_STRING;
	t->str = buf;
	return true;
}

size_t vg_unit_suffix(const char *p, size_t n, uint64_t *mult)
{
	static const struct {
		const char *u;
		uint64_t mult;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t l = strlen(units[i].u);

		if (n >= l && !memcmp(p, units[i].u, l) &&
		    (n == l || !(p[l] == '_' || (p[l] >= '0' && p[l] <= '9') ||
				 ((p[l] | 0x20) >= 'a' && (p[l] | 0x20) <= 'z')))) {
			*mult = units[i].mult;
			return l;
		}
	}
	return 0;
}

static bool lex_number(struct lexer *lx, struct vg_token *t)
{
	const char *s = lx->p;
	uint64_t v = 0;
	bool over = false;
	char b[8];

	if (s[0] == '0' && lx->end - s > 1 && (s[1] == 'x' || s[1] == 'X')) {
		lx->p += 2;
		if (lx->p >= lx->end || hexval(*lx->p) < 0)
			return lex_fail(lx, s, "bad number '0x', expected hex digits after 0x");
		while (lx->p < lx->end && hexval(*lx->p) >= 0) {
			over |= v >> 60 != 0;
			v = v * 16 + (uint64_t)hexval(*lx->p++);
		}
	} else {
		if (s[0] == '0' && lx->end - s > 1 && s[1] >= '0' && s[1] <= '9')
			return lex_fail(lx, s, "octal numbers are not supported, expected a decimal or 0x number");
		while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9') {
			uint64_t d = (uint64_t)(*lx->p++ - '0');

			over |= v > (UINT64_MAX - d) / 10;
			v = v * 10 + d;
		}
	}
	if (over)
		return lex_fail(lx, s, "number too large, expected at most 64 bits");
	/* a duration: 200ms is 200000000 (nanoseconds) */
	if (s[0] != '0' || lx->p - s == 1 || (s[1] | 0x20) != 'x') {
		uint64_t mult;
		size_t u = vg_unit_suffix(lx->p, (size_t)(lx->end - lx->p), &mult);

		if (u) {
			if (v > UINT64_MAX / mult)
				return lex_fail(lx, s, "duration too large, expected at most 64 bits of nanoseconds");
			v *= mult;
			lx->p += u;
		}
	}
	if (lx->p < lx->end && (*lx->p == '_' || *lx->p == '.' ||
				((*lx->p | 0x20) >= 'a' && (*lx->p | 0x20) <= 'z')))
		return lex_fail(lx, lx->p, "unexpected %s in a number, expected a digit",
				show(*lx->p, b));
	t->kind = T_INT;
	t->ival = v;
	return true;
}

static const struct {
	const char *s;
	enum vg_tok t;
} puncts[] = {
	/* longest first */
	{ "<<=", T_SHLEQ }, { ">>=", T_SHREQ },
	{ "->", T_ARROW }, { "::", T_COLONCOLON }, { "<=", T_LE }, { ">=", T_GE }, { "==", T_EQEQ },
	{ "!=", T_NE }, { "<<", T_SHL }, { ">>", T_SHR }, { "&&", T_ANDAND },
	{ "||", T_OROR }, { "+=", T_ADDEQ }, { "-=", T_SUBEQ },
	{ "*=", T_MULEQ }, { "/=", T_DIVEQ }, { "%=", T_MODEQ },
	{ "&=", T_ANDEQ }, { "|=", T_OREQ }, { "^=", T_XOREQ },
	{ "++", T_INC }, { "--", T_DEC },
	{ "(", T_LPAREN }, { ")", T_RPAREN }, { "{", T_LBRACE },
	{ "}", T_RBRACE }, { ",", T_COMMA }, { ";", T_SEMI }, { ":", T_COLON },
	{ ".", T_DOT }, { "?", T_QUESTION }, { "+", T_PLUS }, { "-", T_MINUS },
	{ "*", T_STAR }, { "/", T_SLASH }, { "%", T_PERCENT }, { "&", T_AMP },
	{ "|", T_PIPE }, { "^", T_CARET }, { "~", T_TILDE }, { "!", T_BANG },
	{ "<", T_LT }, { ">", T_GT }, { "=", T_ASSIGN }, { "@", T_AT },
};

const char *vg_tok_name(enum vg_tok t)
{
	switch (t) {
	case T_EOF: return "end of file";
	case T_ERROR: return "error";
	case T_IDENT: return "name";
	case T_INT: return "number";
	case T_STRING: return "string";
	case T_PARAM: return "parameter";
	default:
		for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++)
			if (puncts[i].t == t)
				return puncts[i].s;
		return "?";
	}
}

static bool is_ident(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static bool lex_one(struct lexer *lx)
{
	struct vg_token *t;
	const char *s;
	char b[8];

	for (;;) {
		if (lx->p >= lx->end)
			break;
		if (*lx->p == '\n') {
			lx->line++;
			lx->line_start = ++lx->p;
		} else if (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' ||
			   *lx->p == '\f' || *lx->p == '\v') {
			lx->p++;
		} else if (*lx->p == '#') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else {
			break;
		}
	}
	s = lx->p;
	t = VG_PUSH(lx->ld, lx->toks, lx->ntok, lx->cap);
	t->loc = here(lx, s);
	t->start = s;
	if (s >= lx->end) {
		t->kind = T_EOF;
		return false;
	}
	if (is_ident(*s, true)) {
		while (lx->p < lx->end && is_ident(*lx->p, false))
			lx->p++;
		t->kind = T_IDENT;
		t->str = vg_ld_strndup(lx->ld, s, (size_t)(lx->p - s));
	} else if (*s >= '0' && *s <= '9') {
		if (!lex_number(lx, t))
			goto fail;
	} else if (*s == '$') {
		/* a spec parameter: the parser knows the declarations */
		if (lx->p + 1 >= lx->end || !is_ident(lx->p[1], true)) {
			lx->ntok--;
			lex_fail(lx, s, "expected a parameter name after '$'");
			return false;
		}
		for (lx->p++; lx->p < lx->end && is_ident(*lx->p, false);)
			lx->p++;
		t = &lx->toks[lx->ntok - 1];
		t->kind = T_PARAM;
		t->str = vg_ld_strndup(lx->ld, s + 1, (size_t)(lx->p - s - 1));
	} else if (*s == '"') {
		if (!lex_string(lx, t))
			goto fail;
	} else if (*s == '\'') {
		int c;

		lx->p++;
		if (lx->p < lx->end && *lx->p == '\'') {
			lex_fail(lx, s, "empty character literal, expected one character");
			goto fail;
		}
		if (!lex_char(lx, s, &c))
			goto fail;
		if (lx->p >= lx->end || *lx->p == '\n') {
			lex_fail(lx, s, "unterminated character literal, expected ' before the end of the line");
			goto fail;
		}
		if (*lx->p != '\'') {
			lex_fail(lx, lx->p, "character literal too long, expected ' after one character");
			goto fail;
		}
		lx->p++;
		t = &lx->toks[lx->ntok - 1];
		t->kind = T_INT;
		t->ival = (uint64_t)c;
	} else {
		size_t i;

		for (i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
			size_t n = strlen(puncts[i].s);

			if ((size_t)(lx->end - s) >= n &&
			    !memcmp(s, puncts[i].s, n)) {
				t->kind = puncts[i].t;
				lx->p += n;
				break;
			}
		}
		if (i == sizeof(puncts) / sizeof(puncts[0])) {
			lx->ntok--;
			lex_fail(lx, s, "unexpected character %s", show(*s, b));
			return false;
		}
	}
	t = &lx->toks[lx->ntok - 1];
	t->len = (size_t)(lx->p - s);
	return true;
fail:
	/* drop the half-made token, keep the T_ERROR that follows it */
	lx->toks[lx->ntok - 2] = lx->toks[lx->ntok - 1];
	lx->ntok--;
	return false;
}

struct vg_token *vg_lex(struct vg_ld *ld, const char *file, const char *text,
			size_t len, int *ntok)
{
	struct lexer lx = {
		.ld = ld, .file = file, .text = text, .p = text,
		.end = text + len, .line_start = text, .line = 1,
	};

	while (lex_one(&lx))
		;
	*ntok = lx.ntok;
	return lx.toks;
}
