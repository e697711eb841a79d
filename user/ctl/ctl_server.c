/* The control channel's server side (ctl.h): accept, check the peer, cut
 * lines, hand each request to the session, write the response. */
#include "ctl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/rundir.h"

#define VG_CTL_CLIENTS 16

struct client {
	int fd;			/* -1: free */
	char *buf;		/* the line being read */
	size_t len;
};

struct vg_ctl {
	int lfd, ep;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	vg_ctl_handler fn;
	vg_ctl_closed closed;
	void *ctx;
	struct client cl[VG_CTL_CLIENTS];
};

int vg_ctl_socket_path(pid_t pid, char *out, size_t len, struct vg_err *e)
{
	char dir[PATH_MAX];

	if (vg_rundir(dir, sizeof(dir), e))
		return -1;
	if ((size_t)snprintf(out, len, "%s/ctl-%d.sock", dir, pid) >= len ||
	    strlen(out) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return vg_errf(e, "the run directory %s is too long for a Unix socket path (set TMPDIR shorter)",
			       dir);
	return 0;
}

struct vg_ctl *vg_ctl_open(pid_t pid, vg_ctl_handler fn, vg_ctl_closed closed,
			   void *ctx, struct vg_err *e)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN };
	struct vg_ctl *c = calloc(1, sizeof(*c));
	mode_t old;

	if (!c) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	c->lfd = c->ep = -1;
	for (int i = 0; i < VG_CTL_CLIENTS; i++)
		c->cl[i].fd = -1;
	c->fn = fn;
	c->closed = closed;
	c->ctx = ctx;
	if (vg_ctl_socket_path(pid, c->path, sizeof(c->path), e))
		goto fail;
	memcpy(sa.sun_path, c->path, strlen(c->path) + 1);
	/* a socket left by a vigil that died for a pid now reused */
	unlink(c->path);
	c->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	if (c->lfd < 0 || c->ep < 0) {
		vg_errf(e, "control socket: %s", strerror(errno));
		goto fail;
	}
	/* 0600 from the start: no moment where another user may connect */
	old = umask(0177);
	if (bind(c->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(c->lfd, 8)) {
		umask(old);
		vg_errf(e, "control socket %s: %s", c->path, strerror(errno));
		goto fail;
	}
	umask(old);
	ev.data.u32 = 0;	/* clients are 1 + their index */
	epoll_ctl(c->ep, EPOLL_CTL_ADD, c->lfd, &ev);
	return c;
fail:
	vg_ctl_close(c);
	return NULL;
}

static void drop(struct vg_ctl *c, int i)
{
	if (c->cl[i].fd < 0)
		return;
	epoll_ctl(c->ep, EPOLL_CTL_DEL, c->cl[i].fd, NULL);
	close(c->cl[i].fd);
	c->cl[i].fd = -1;
	free(c->cl[i].buf);
	c->cl[i].buf = NULL;
	c->cl[i].len = 0;
	if (c->closed)
		c->closed(c->ctx, i);
}

void vg_ctl_close(struct vg_ctl *c)
{
	if (!c)
		return;
	c->closed = NULL;	/* the session is going away */
	for (int i = 0; i < VG_CTL_CLIENTS; i++)
		drop(c, i);
	if (c->lfd >= 0) {
		close(c->lfd);
		unlink(c->path);
	}
	if (c->ep >= 0)
		close(c->ep);
	free(c);
}

int vg_ctl_fd(const struct vg_ctl *c)
{
	return c->ep;
}

const char *vg_ctl_path(const struct vg_ctl *c)
{
	return c->path;
}

/* Only the user vigil runs as (or root) may drive it. */
static bool peer_ok(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return false;
	return cr.uid == geteuid() || cr.uid == 0;
}

pid_t vg_ctl_peer_pid(const struct vg_ctl *c, int client)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (client < 0 || client >= VG_CTL_CLIENTS || c->cl[client].fd < 0 ||
	    getsockopt(c->cl[client].fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return 0;
	return cr.pid;
}

static void accept_all(struct vg_ctl *c)
{
	struct timeval tv = { 0, VG_CTL_SEND_MS * 1000 };
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, i;

	while ((fd = accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		for (i = 0; i < VG_CTL_CLIENTS && c->cl[i].fd >= 0; i++)
			;
		if (i == VG_CTL_CLIENTS || !peer_ok(fd)) {
			close(fd);
			continue;
		}
		/* writes block at most this long; reads never block */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		c->cl[i].fd = fd;
		ev.data.u32 = (uint32_t)i + 1;
		epoll_ctl(c->ep, EPOLL_CTL_ADD, fd, &ev);
	}
}

static bool send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return true;
}

static json_t *error_reply(const char *msg)
{
	return json_pack("{s:i,s:b,s:s}", "v", VG_CTL_VERSION, "ok", 0,
			 "error", msg);
}

/* One request line: parse, dispatch, answer. False: drop the client. */
static bool answer(struct vg_ctl *c, int i, const char *line)
{
	json_error_t je;
	json_t *req = json_loads(line, 0, &je), *args, *resp;
	const char *cmd;
	char *out;
	bool ok;

	if (!req || !json_is_object(req)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "not a JSON object: %s", je.text);
		resp = error_reply(msg);
	} else if (json_integer_value(json_object_get(req, "v")) != VG_CTL_VERSION) {
		resp = error_reply("unsupported protocol version (this vigil speaks \"v\":1)");
	} else if (!(cmd = json_string_value(json_object_get(req, "cmd")))) {
		resp = error_reply("no \"cmd\" string");
	} else {
		args = json_object_get(req, "args");
		if (args && !json_is_array(args))
			resp = error_reply("\"args\" must be an array of strings");
		else {
			json_t *none = json_array();

			resp = c->fn(c->ctx, i, cmd, args ? args : none, req);
			json_decref(none);
		}
	}
	json_decref(req);
	if (!resp)
		resp = error_reply("out of memory");
	if (!json_object_get(resp, "v"))
		json_object_set_new(resp, "v", json_integer(VG_CTL_VERSION));
	out = json_dumps(resp, JSON_COMPACT);
	json_decref(resp);
	if (!out)
		return false;
	ok = send_all(c->cl[i].fd, out, strlen(out)) &&
	     send_all(c->cl[i].fd, "\n", 1);
	free(out);
	return ok;
}

/* Take what client i sent; answer each complete line. */
static void read_client(struct vg_ctl *c, int i)
{
	struct client *cl = &c->cl[i];
	char chunk[4096];

	for (;;) {
		ssize_t n = recv(cl->fd, chunk, sizeof(chunk), MSG_DONTWAIT);
		char *nl, *nb;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0 || cl->len + (size_t)n > VG_CTL_LINE_MAX) {
			drop(c, i);
			return;
		}
		if (!(nb = realloc(cl->buf, cl->len + (size_t)n + 1))) {
			drop(c, i);
			return;
		}
		cl->buf = nb;
		memcpy(cl->buf + cl->len, chunk, (size_t)n);
		cl->len += (size_t)n;
		cl->buf[cl->len] = 0;
		while (cl->fd >= 0 && (nl = memchr(cl->buf, '\n', cl->len))) {
			size_t used = (size_t)(nl - cl->buf) + 1;

			*nl = 0;
			if (!answer(c, i, cl->buf)) {
				drop(c, i);
				return;
			}
			memmove(cl->buf, cl->buf + used, cl->len - used + 1);
			cl->len -= used;
		}
		if (cl->fd < 0)
			return;
	}
}

void vg_ctl_serve(struct vg_ctl *c)
{
	struct epoll_event evs[VG_CTL_CLIENTS + 1];
	bool knock = false;
	int n;

	if (!c)
		return;
	/* called at every turn of the session's loop: a system call more
	 * than needed there is one per batch of records */
	n = epoll_wait(c->ep, evs, VG_CTL_CLIENTS + 1, 0);
	for (int k = 0; k < n; k++) {
		if (evs[k].data.u32 == 0) {
			knock = true;	/* the listener: accept_all below */
			continue;
		}
		if (c->cl[evs[k].data.u32 - 1].fd >= 0)
			read_client(c, (int)evs[k].data.u32 - 1);
	}
	if (knock)
		accept_all(c);
}
