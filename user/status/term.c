/* The status line, and the stderr stream that clears it before writing
 * (term.h). */
#include "term.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define CLEAR "\r\033[K"	/* to column 0, erase to the end of the line */

struct vg_status {
	FILE *orig;		/* stderr before */
	FILE *wrap;		/* stderr while the status lives */
	bool shown;		/* the status line is on the screen */
	bool midline;		/* other output ended without a newline */
	bool hidden;		/* drawn no more (vg_status_hide) */
	uint64_t next_ns;	/* no redraw before */
};

static void put(const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(STDERR_FILENO, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;		/* a terminal gone: nothing to do */
		buf += w;
		n -= (size_t)w;
	}
}

/* fopencookie's write: whatever a module prints, the status line goes
 * first. */
static ssize_t wrap_write(void *cookie, const char *buf, size_t n)
{
	struct vg_status *st = cookie;

	if (st->shown) {
		put(CLEAR, sizeof(CLEAR) - 1);
		st->shown = false;
	}
	put(buf, n);
	if (n)
		st->midline = buf[n - 1] != '\n';
	return (ssize_t)n;
}

struct vg_status *vg_status_new(struct vg_err *e)
{
	cookie_io_functions_t io = { .write = wrap_write };
	struct vg_status *st = calloc(1, sizeof(*st));

	if (!st) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	fflush(stderr);
	st->wrap = fopencookie(st, "w", io);
	if (!st->wrap) {
		vg_errf(e, "the status line: %s", strerror(errno));
		free(st);
		return NULL;
	}
	/* unbuffered, as stderr is: a message is on the screen when the
	 * call that printed it returns (glibc formats one fprintf into one
	 * write even so) */
	setvbuf(st->wrap, NULL, _IONBF, 0);
	st->orig = stderr;
	stderr = st->wrap;
	return st;
}

void vg_status_hide(struct vg_status *st)
{
	if (!st)
		return;
	fflush(st->wrap);
	if (st->shown)
		put(CLEAR, sizeof(CLEAR) - 1);
	st->shown = false;
	st->hidden = true;
}

void vg_status_free(struct vg_status *st)
{
	if (!st)
		return;
	vg_status_hide(st);
	stderr = st->orig;
	fclose(st->wrap);
	free(st);
}

bool vg_status_due(const struct vg_status *st, uint64_t now_ns)
{
	return st && !st->hidden && now_ns >= st->next_ns;
}

int vg_status_width(const struct vg_status *st)
{
	struct winsize ws;

	/* the last column is left alone: a line that fills it wraps on some
	 * terminals, and \r would then redraw only the wrapped part */
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < 20)
		return 79;
	return ws.ws_col - 1;
}

void vg_status_show(struct vg_status *st, const char *text, uint64_t now_ns)
{
	char line[512];
	int n, cols = vg_status_width(st);

	st->next_ns = now_ns + VG_STATUS_GAP_NS;
	if (st->midline || st->hidden)
		return;
	n = snprintf(line, sizeof(line), CLEAR "%.*s",
		     cols < 500 ? cols : 500, text);
	if (n < 0)
		return;
	put(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	st->shown = true;
}
