#include "lines.h"

#include <stdlib.h>
#include <string.h>

int vg_read_line(FILE *f, char **buf, size_t *cap, size_t max, size_t *len)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n == max)
			return -1;
		if (n + 2 > *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			char *b;

			if (ncap > max + 1)
				ncap = max + 1;
			if (ncap < n + 2)
				ncap = n + 2;
			if (!(b = realloc(*buf, ncap)))
				return -1;
			*buf = b;
			*cap = ncap;
		}
		(*buf)[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return 0;
	if (!*buf) {		/* an empty line before any other */
		if (!(*buf = malloc(1)))
			return -1;
		*cap = 1;
	}
	(*buf)[n] = 0;
	*len = n;
	return 1;
}

ssize_t vg_not_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 && c != '\t' && c != '\r' && c != '\f' &&
		    c != '\v')
			return (ssize_t)i;
		if (c == 0x7f)
			return (ssize_t)i;
	}
	return -1;
}
