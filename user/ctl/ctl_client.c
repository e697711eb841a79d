/* The control channel's client side (ctl.h): one request, one response,
 * with a deadline on the connect, the write and every read. */
#include "ctl.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

static int remaining_ms(uint64_t end)
{
	uint64_t now = vg_now_ns(CLOCK_MONOTONIC);

	return now >= end ? 0 : (int)((end - now) / 1000000) + 1;
}

json_t *vg_ctl_call(const char *path, const char *cmd, json_t *args,
		    int timeout_ms, struct vg_err *e)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t end = vg_now_ns(CLOCK_MONOTONIC) +
		       (uint64_t)timeout_ms * 1000000ull;
	json_t *req, *resp = NULL;
	char *line = NULL, *out = NULL;
	size_t len = 0;
	int fd = -1;

	req = json_pack("{s:i,s:s,s:o}", "v", VG_CTL_VERSION, "cmd", cmd,
			"args", args ? args : json_array());
	if (!req || !(out = json_dumps(req, JSON_COMPACT))) {
		vg_errf(e, "out of memory");
		goto out;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		vg_errf(e, "socket path too long: %s", path);
		goto out;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		vg_errf(e, "cannot reach vigil at %s: %s", path, strerror(errno));
		goto out;
	}
	{
		struct timeval tv = { timeout_ms / 1000,
				      (timeout_ms % 1000) * 1000 };

		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	if (send(fd, out, strlen(out), MSG_NOSIGNAL) != (ssize_t)strlen(out) ||
	    send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
		vg_errf(e, "sending to vigil: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char chunk[8192], *nb;
		ssize_t n;
		int ms = remaining_ms(end);

		if (!ms || poll(&p, 1, ms) == 0) {
			vg_errf(e, "vigil did not answer within %d ms", timeout_ms);
			goto out;
		}
		n = recv(fd, chunk, sizeof(chunk), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			vg_errf(e, "vigil closed the connection without an answer");
			goto out;
		}
		if (!(nb = realloc(line, len + (size_t)n + 1))) {
			vg_errf(e, "out of memory");
			goto out;
		}
		line = nb;
		memcpy(line + len, chunk, (size_t)n);
		len += (size_t)n;
		line[len] = 0;
		if (memchr(line, '\n', len))
			break;
	}
	{
		json_error_t je;

		resp = json_loads(line, JSON_DISABLE_EOF_CHECK, &je);
		if (!resp)
			vg_errf(e, "vigil's answer is not JSON: %s", je.text);
	}
out:
	if (fd >= 0)
		close(fd);
	json_decref(req);
	free(out);
	free(line);
	return resp;
}
