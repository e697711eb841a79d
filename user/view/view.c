/* The live view's HTTP side (view.h): libmicrohttpd, one thread per
 * connection, so a page's event stream can simply wait for the next frame.
 *
 * What a request may see is guarded by a random token in the URL: the
 * frames carry slice parameters and variables, which are the target's
 * data (addresses, arguments). The page and its script are public, the
 * same for every run. */
#include "view.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <microhttpd.h>

#include "util/lazylib.h"

#define VG_VIEW_MAX_CLIENTS 16
#define VG_VIEW_STATIC_MAX (1 << 20)

static const char *const static_names[] = { "index.html", "view.js",
					    "view.css" };
static const char *const static_types[] = { "text/html; charset=utf-8",
					    "text/javascript",
					    "text/css" };
#define NSTATIC (sizeof(static_names) / sizeof(static_names[0]))

struct vg_view {
	struct MHD_Daemon *d;
	char url[128];
	char token[33];
	char *svg;
	size_t svg_len;
	char *files[NSTATIC];
	size_t file_len[NSTATIC];

	pthread_mutex_t mu;	/* everything below */
	pthread_cond_t cond;	/* a new frame, or stopping */
	char *frame;		/* the last one, a JSON object */
	size_t frame_len;
	uint64_t seq;		/* frames published */
	uint64_t last_ns;	/* when the last one was */
	int clients;		/* event streams open */
	bool dirty;		/* a page connected or chose a state */
	int sel_prop, sel_state;
	bool stopping;
};

/* The page's files, beside the binary: in the source tree (build/vigil ->
 * user/view/static/) or installed (bin/vigil -> share/vigil/view/). */
static int load_static(struct vg_view *v, struct vg_err *e)
{
	static const char *const rel[] = { "/../user/view/static",
					   "/../share/vigil/view" };
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	const char *dir = NULL;

	if (n <= 0)
		return vg_errf(e, "--view: cannot find vigil's own path: %s",
			       strerror(errno));
	exe[n] = 0;
	if ((slash = strrchr(exe, '/')))
		*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]) && !dir; i++) {
		snprintf(path, sizeof(path), "%s%s/index.html", exe, rel[i]);
		if (access(path, R_OK) == 0)
			dir = rel[i];
	}
	if (!dir)
		return vg_errf(e, "--view: the page's files are not beside %s (looked for %s/../user/view/static and %s/../share/vigil/view)",
			       exe, exe, exe);
	for (size_t i = 0; i < NSTATIC; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s%s/%s", exe, dir,
			 static_names[i]);
		if (!(f = fopen(path, "r")))
			return vg_errf(e, "--view: %s: %s", path,
				       strerror(errno));
		v->files[i] = malloc(VG_VIEW_STATIC_MAX);
		if (!v->files[i]) {
			fclose(f);
			return vg_errf(e, "out of memory");
		}
		v->file_len[i] = fread(v->files[i], 1, VG_VIEW_STATIC_MAX, f);
		fclose(f);
		if (v->file_len[i] == VG_VIEW_STATIC_MAX)
			return vg_errf(e, "--view: %s is larger than %d bytes",
				       path, VG_VIEW_STATIC_MAX);
	}
	return 0;
}

/* Constant time, so the token cannot be guessed a byte at a time. */
static bool token_ok(const struct vg_view *v, const char *t)
{
	unsigned char diff = 0;
	size_t n = sizeof(v->token) - 1;

	if (!t || strlen(t) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(t[i] ^ v->token[i]);
	return diff == 0;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
			     const char *type, const void *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, (void *)body, mode);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status,
			    const char *msg)
{
	return reply(c, status, "text/plain; charset=utf-8", msg, strlen(msg),
		     MHD_RESPMEM_PERSISTENT);
}

/* ---- the event stream ------------------------------------------------ */

struct stream {
	struct vg_view *v;
	uint64_t seq;		/* the frame it has sent */
	char *buf;		/* what it is sending: "data: ...\n\n" */
	size_t len, off;
};

/* Blocks (its own thread) until there is a frame it has not sent, or a
 * second has passed (then a comment line, so a closed page is noticed). */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *s = cls;
	struct vg_view *v = s->v;
	size_t n;

	(void)pos;
	if (s->off == s->len) {
		struct timespec until;

		free(s->buf);
		s->buf = NULL;
		s->off = s->len = 0;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_mutex_lock(&v->mu);
		while (!v->stopping && (v->seq == s->seq || !v->frame))
			if (pthread_cond_timedwait(&v->cond, &v->mu, &until) ==
			    ETIMEDOUT)
				break;
		if (v->stopping) {
			pthread_mutex_unlock(&v->mu);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		if (v->frame && v->seq != s->seq) {
			s->len = v->frame_len + 8;
			s->buf = malloc(s->len + 1);
			if (s->buf) {
				memcpy(s->buf, "data: ", 6);
				memcpy(s->buf + 6, v->frame, v->frame_len);
				memcpy(s->buf + 6 + v->frame_len, "\n\n", 2);
				s->seq = v->seq;
			}
		}
		pthread_mutex_unlock(&v->mu);
		if (!s->buf) {
			s->buf = strdup(":\n\n");
			s->len = s->buf ? 3 : 0;
			if (!s->buf)
				return MHD_CONTENT_READER_END_WITH_ERROR;
		}
	}
	n = s->len - s->off < max ? s->len - s->off : max;
	memcpy(out, s->buf + s->off, n);
	s->off += n;
	return (ssize_t)n;
}

static void stream_end(void *cls)
{
	struct stream *s = cls;

	pthread_mutex_lock(&s->v->mu);
	__atomic_sub_fetch(&s->v->clients, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&s->v->mu);
	free(s->buf);
	free(s);
}

static enum MHD_Result stream_start(struct vg_view *v, struct MHD_Connection *c)
{
	struct stream *s = calloc(1, sizeof(*s));
	struct MHD_Response *r;
	enum MHD_Result rc;

	if (!s)
		return MHD_NO;
	s->v = v;
	pthread_mutex_lock(&v->mu);
	if (v->clients >= VG_VIEW_MAX_CLIENTS) {
		pthread_mutex_unlock(&v->mu);
		free(s);
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "vigil: too many pages are watching this run\n");
	}
	__atomic_add_fetch(&v->clients, 1, __ATOMIC_RELAXED);
	v->dirty = true;	/* a frame for it now, not in 200 ms */
	pthread_mutex_unlock(&v->mu);
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384,
					      stream_read, s, stream_end);
	if (!r) {
		stream_end(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

/* ---- requests -------------------------------------------------------- */

static int arg_int(struct MHD_Connection *c, const char *name)
{
	const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						    name);
	char *end;
	long n;

	if (!s || !*s)
		return -1;
	n = strtol(s, &end, 10);
	return *end || n < 0 || n > 1 << 20 ? -1 : (int)n;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *data,
				  size_t *data_len, void **req)
{
	struct vg_view *v = cls;
	const char *t;

	(void)version;
	(void)data;
	(void)data_len;
	(void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "vigil: only GET\n");
	/* the page's own files are the same for every run: no token */
	for (size_t i = 1; i < NSTATIC; i++)
		if (url[0] == '/' && !strcmp(url + 1, static_names[i]))
			return reply(c, MHD_HTTP_OK, static_types[i],
				     v->files[i], v->file_len[i],
				     MHD_RESPMEM_PERSISTENT);
	t = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "t");
	if (!token_ok(v, t))
		return text(c, MHD_HTTP_FORBIDDEN,
			    "vigil: this page needs the token of the URL vigil printed (the monitor's state shows the program's data)\n");
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, static_types[0], v->files[0],
			     v->file_len[0], MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/graph.svg"))
		return reply(c, MHD_HTTP_OK, "image/svg+xml", v->svg,
			     v->svg_len, MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/events"))
		return stream_start(v, c);
	if (!strcmp(url, "/select")) {
		pthread_mutex_lock(&v->mu);
		v->sel_prop = arg_int(c, "prop");
		v->sel_state = arg_int(c, "state");
		v->dirty = true;
		pthread_mutex_unlock(&v->mu);
		return reply(c, MHD_HTTP_OK, "application/json", "{}", 2,
			     MHD_RESPMEM_PERSISTENT);
	}
	return text(c, MHD_HTTP_NOT_FOUND, "vigil: no such page\n");
}

/* ---- life ------------------------------------------------------------ */

static void view_free(struct vg_view *v)
{
	for (size_t i = 0; i < NSTATIC; i++)
		free(v->files[i]);
	free(v->svg);
	free(v->frame);
	pthread_mutex_destroy(&v->mu);
	pthread_cond_destroy(&v->cond);
	free(v);
}

struct vg_view *vg_view_start(const struct vg_view_opts *o, struct vg_err *e)
{
	struct vg_view *v = calloc(1, sizeof(*v));
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *addr = o->addr ? o->addr : "127.0.0.1";
	unsigned char rnd[16];
	const union MHD_DaemonInfo *info;
	sigset_t all, old;

	if (!v) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&v->mu, NULL);
	pthread_cond_init(&v->cond, NULL);
	v->sel_prop = v->sel_state = -1;
	if (load_static(v, e))
		goto fail;
	if (!(v->svg = malloc(o->svg_len + 1))) {
		vg_errf(e, "out of memory");
		goto fail;
	}
	memcpy(v->svg, o->svg, o->svg_len);
	v->svg_len = o->svg_len;
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		vg_errf_code(e, VG_EXIT_USAGE,
			     "--view-addr %s: not a numeric IPv4 address", addr);
		goto fail;
	}
	sa.sin_port = htons((uint16_t)o->port);
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		vg_errf(e, "--view: no random token: %s", strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(v->token + 2 * i, 3, "%02x", rnd[i]);
	/* its threads must not take the signals the session waits for
	 * (SIGINT would kill vigil there): they inherit this mask */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	v->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
				MHD_USE_INTERNAL_POLLING_THREAD,
				0, NULL, NULL, on_request, v,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_CONNECTION_LIMIT,
				(unsigned)VG_VIEW_MAX_CLIENTS + 8,
				MHD_OPTION_CONNECTION_TIMEOUT, 60u,
				MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!v->d && vg_lazylib_mhd_error()) {
		vg_errf(e, "--view: cannot load libmicrohttpd: %s",
			vg_lazylib_mhd_error());
		goto fail;
	}
	if (!v->d) {
		vg_errf(e, "--view: cannot listen on %s:%d (in use, or not an address of this machine?)",
			addr, o->port);
		goto fail;
	}
	info = MHD_get_daemon_info(v->d, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(v->url, sizeof(v->url), "http://%s:%u/?t=%s", addr,
		 info ? info->port : (unsigned)o->port, v->token);
	return v;
fail:
	view_free(v);
	return NULL;
}

const char *vg_view_url(const struct vg_view *v)
{
	return v->url;
}

bool vg_view_due(struct vg_view *v, uint64_t now_ns)
{
	bool due;

	/* read without the lock first: the common case, nobody watching,
	 * costs a load */
	if (!__atomic_load_n(&v->clients, __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&v->mu);
	due = v->dirty ||
	      now_ns - v->last_ns >= (uint64_t)VG_VIEW_PERIOD_MS * 1000000;
	pthread_mutex_unlock(&v->mu);
	return due;
}

void vg_view_selected(struct vg_view *v, int *prop, int *state)
{
	pthread_mutex_lock(&v->mu);
	*prop = v->sel_prop;
	*state = v->sel_state;
	pthread_mutex_unlock(&v->mu);
}

void vg_view_publish(struct vg_view *v, char *json, size_t len,
		     uint64_t now_ns)
{
	pthread_mutex_lock(&v->mu);
	free(v->frame);
	v->frame = json;
	v->frame_len = len;
	v->seq++;
	v->last_ns = now_ns;
	v->dirty = false;
	pthread_cond_broadcast(&v->cond);
	pthread_mutex_unlock(&v->mu);
}

int vg_view_clients(struct vg_view *v)
{
	return __atomic_load_n(&v->clients, __ATOMIC_RELAXED);
}

void vg_view_linger(struct vg_view *v)
{
	sigset_t set, old;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	fprintf(stderr, "vigil: the view keeps the final picture at %s; Ctrl-C (SIGINT) or SIGTERM ends vigil\n",
		v->url);
	sigwait(&set, &sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void vg_view_stop(struct vg_view *v)
{
	if (!v)
		return;
	pthread_mutex_lock(&v->mu);
	v->stopping = true;
	pthread_cond_broadcast(&v->cond);
	pthread_mutex_unlock(&v->mu);
	MHD_stop_daemon(v->d);
	view_free(v);
}
