/* System call names and numbers (user/probe/syscalls.h). */
#include "syscalls.h"

#include <stddef.h>
#include <string.h>

static const struct {
	const char *name;
	int nr;
} table[] = {
#include "syscall_names.h"
};

#define NTABLE (sizeof(table) / sizeof(table[0]))

int vg_syscall_nr(const char *name)
{
	for (size_t i = 0; i < NTABLE; i++)
		if (!strcmp(table[i].name, name))
			return table[i].nr;
	return -1;
}

/* edit distance, capped: names are short */
static int distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b), row[64], prev, tmp;

	if (la > 63 || lb > 63)
		return 99;
	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (int j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = a[i - 1] == b[j - 1] ? prev
				 : 1 + (prev < row[j] ? (prev < row[j - 1] ? prev : row[j - 1])
						      : (row[j] < row[j - 1] ? row[j] : row[j - 1]));
			prev = tmp;
		}
	}
	return row[lb];
}

int vg_syscall_similar(const char *name, const char **out, int max)
{
	int k = 0;

	/* a typo (`opne`), or a family (`stat` -> statx, `open` -> openat) */
	for (size_t i = 0; i < NTABLE && k < max; i++)
		if (distance(name, table[i].name) <= 2 ||
		    (strlen(name) >= 4 &&
		     !strncmp(table[i].name, name, strlen(name))))
			out[k++] = table[i].name;
	return k;
}
