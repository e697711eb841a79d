#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

FILE *vg_json_open(const char *path, struct vg_err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *f;

	if (fd < 0) {
		vg_errf(e, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		vg_errf(e, "cannot write %s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

/* a byte JSON writes as it is */
static bool plain(unsigned char c)
{
	return c >= 0x20 && c != '"' && c != '\\';
}

void vg_json_str(FILE *f, const char *s)
{
	const unsigned char *c = (const unsigned char *)s;

	fputc('"', f);
	while (c && *c) {
		size_t n = 0;

		/* runs of plain bytes in one write: a --json run writes a
		 * line per slice at its end, tens of thousands of them */
		while (plain(c[n]))
			n++;
		fwrite(c, 1, n, f);
		c += n;
		switch (*c) {
		case 0: continue;
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default: fprintf(f, "\\u%04x", *c);
		}
		c++;
	}
	fputc('"', f);
}

void vg_json_value(FILE *f, enum vg_type t, const char *formatted)
{
	size_t n = strlen(formatted);

	switch (t) {
	case VG_TYPE_INT:
	case VG_TYPE_UINT:
	case VG_TYPE_BOOL:
		fputs(formatted, f);
		break;
	case VG_TYPE_STR:
		/* vg_format_value quoted it for humans; unquote */
		if (n >= 2 && formatted[0] == '"') {
			char buf[n];

			memcpy(buf, formatted + 1, n - 2);
			buf[n - 2] = 0;
			vg_json_str(f, buf);
			break;
		}
		/* fall through */
	default:
		vg_json_str(f, formatted);
	}
}
