/* The Prometheus endpoint: libmicrohttpd serves the last published body
 * (or the source's) at /metrics; the exposition format's writing and the
 * merge of several bodies (the agent's sessions). */
#include "metrics/metrics.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/lazylib.h"

struct vg_metrics {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	char *body;
	size_t len;
	vg_metrics_source source;
	void *ctx;
	int port;
};

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

int vg_metrics_parse_addr(const char *s, char *addr, size_t len, int *port)
{
	const char *colon = strrchr(s, ':');
	struct in_addr a;
	char *end;
	long p;

	if (!colon || (size_t)(colon - s) >= len || colon == s)
		return -1;
	memcpy(addr, s, colon - s);
	addr[colon - s] = 0;
	if (inet_pton(AF_INET, addr, &a) != 1)
		return -1;
	p = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || p < 0 || p > 65535)
		return -1;
	*port = (int)p;
	return 0;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status,
			      const char *body, size_t len, bool copy)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body,
					    copy ? MHD_RESPMEM_MUST_COPY
						 : MHD_RESPMEM_MUST_FREE);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", CONTENT_TYPE);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	static const char not_found[] = "vigil: the metrics are at /metrics\n";
	struct vg_metrics *m = cls;
	enum MHD_Result ret;
	char *body;
	size_t len;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, "", 0, true);
	if (strcmp(url, "/metrics"))
		return answer(c, MHD_HTTP_NOT_FOUND, not_found,
			      sizeof(not_found) - 1, true);
	if (m->source) {
		if (!(body = m->source(m->ctx, &len)))
			return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "", 0,
				      true);
		return answer(c, MHD_HTTP_OK, body, len, false);
	}
	pthread_mutex_lock(&m->lock);
	ret = answer(c, MHD_HTTP_OK, m->body ? m->body : "",
		     m->body ? m->len : 0, true);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

struct vg_metrics *vg_metrics_start(const char *addr, int port,
				    struct vg_err *e)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	const union MHD_DaemonInfo *info;
	struct vg_metrics *m = calloc(1, sizeof(*m));
	sigset_t all, old;

	if (!m) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		vg_errf_code(e, VG_EXIT_USAGE, "--metrics: '%s' is not a numeric IPv4 address", addr);
		goto fail;
	}
	/* the session's signals stay the session's (as the view's threads) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
				on_request, m,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_CONNECTION_LIMIT, 16u,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!m->d && vg_lazylib_mhd_error()) {
		vg_errf(e, "--metrics: cannot load libmicrohttpd: %s",
			vg_lazylib_mhd_error());
		goto fail;
	}
	if (!m->d) {
		vg_errf(e, "--metrics: cannot listen on %s:%d (in use, or not an address of this machine?)",
			addr, port);
		goto fail;
	}
	info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
	m->port = info ? info->port : port;
	return m;
fail:
	pthread_mutex_destroy(&m->lock);
	free(m);
	return NULL;
}

int vg_metrics_port(const struct vg_metrics *m)
{
	return m->port;
}

void vg_metrics_publish(struct vg_metrics *m, char *body, size_t len)
{
	char *old;

	pthread_mutex_lock(&m->lock);
	old = m->body;
	m->body = body;
	m->len = len;
	pthread_mutex_unlock(&m->lock);
	free(old);
}

void vg_metrics_set_source(struct vg_metrics *m, vg_metrics_source fn,
			   void *ctx)
{
	m->ctx = ctx;
	m->source = fn;
}

void vg_metrics_stop(struct vg_metrics *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->d);
	pthread_mutex_destroy(&m->lock);
	free(m->body);
	free(m);
}

void vg_metrics_family(FILE *f, const char *name, const char *type,
		       const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void vg_metrics_sample(FILE *f, const char *name, double value, ...)
{
	const char *k, *v;
	bool any = false;
	va_list ap;

	fputs(name, f);
	va_start(ap, value);
	while ((k = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		fprintf(f, "%s%s=\"", any ? "," : "{", k);
		for (; *v; v++) {	/* the format's three escapes */
			if (*v == '\\' || *v == '"')
				fputc('\\', f);
			if (*v == '\n')
				fputs("\\n", f);
			else
				fputc(*v, f);
		}
		fputc('"', f);
		any = true;
	}
	va_end(ap);
	fprintf(f, "%s %.15g\n", any ? "}" : "", value);
}

void vg_metrics_self(double *cpu_seconds, uint64_t *rss_bytes)
{
	struct rusage ru;
	unsigned long pages = 0, rss = 0;
	FILE *f;

	*cpu_seconds = 0;
	if (!getrusage(RUSAGE_SELF, &ru))
		*cpu_seconds = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	*rss_bytes = 0;
	if ((f = fopen("/proc/self/statm", "re"))) {
		if (fscanf(f, "%lu %lu", &pages, &rss) == 2)
			*rss_bytes = (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
		fclose(f);
	}
}

/* --- merge --- */

struct family {
	char name[128];
	char *help, *type;	/* the first body's lines */
	char *samples;		/* every body's, in order */
	size_t nsamples, cap;
};

static void family_name(const char *line, size_t len, char *name, size_t cap)
{
	size_t i = 0;

	if (line[0] == '#') {	/* "# HELP name ..." / "# TYPE name ..." */
		line += 7;
		len = len > 7 ? len - 7 : 0;
	}
	while (i < len && i + 1 < cap && line[i] != ' ' && line[i] != '{')
		name[i] = line[i], i++;
	name[i] = 0;
	/* a histogram's or summary's samples belong to its family; vigil
	 * has none, so a name is its family */
}

static struct family *family_of(struct family **fams, size_t *n,
				const char *name)
{
	struct family *f;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*fams)[i].name, name))
			return &(*fams)[i];
	if (!(f = realloc(*fams, (*n + 1) * sizeof(*f))))
		return NULL;
	*fams = f;
	f = &f[(*n)++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

static int append(char **buf, size_t *len, size_t *cap, const char *s,
		  size_t n)
{
	if (*len + n + 2 > *cap) {
		size_t c = (*cap ? *cap * 2 : 256) + n + 2;
		char *b = realloc(*buf, c);

		if (!b)
			return -1;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[(*len)++] = '\n';
	(*buf)[*len] = 0;
	return 0;
}

char *vg_metrics_merge(const char *const *bodies, size_t n, size_t *len)
{
	struct family *fams = NULL, *f;
	size_t nfams = 0, olen = 0, ocap = 0;
	char *out = NULL, name[128];
	bool oom = false;

	for (size_t b = 0; b < n && !oom; b++) {
		for (const char *p = bodies[b]; p && *p && !oom;) {
			const char *nl = strchr(p, '\n');
			size_t l = nl ? (size_t)(nl - p) : strlen(p);
			bool help = l > 7 && !strncmp(p, "# HELP ", 7);
			bool type = l > 7 && !strncmp(p, "# TYPE ", 7);

			if (l && (p[0] != '#' || help || type)) {
				family_name(p, l, name, sizeof(name));
				if (!(f = family_of(&fams, &nfams, name)))
					oom = true;
				else if (help && !f->help)
					oom = !(f->help = strndup(p, l));
				else if (type && !f->type)
					oom = !(f->type = strndup(p, l));
				else if (!help && !type)
					oom = append(&f->samples, &f->nsamples,
						     &f->cap, p, l) < 0;
			}
			p += l + (nl != NULL);
		}
	}
	for (size_t i = 0; i < nfams && !oom; i++) {
		f = &fams[i];
		if (f->help)
			oom |= append(&out, &olen, &ocap, f->help,
				      strlen(f->help)) < 0;
		if (f->type)
			oom |= append(&out, &olen, &ocap, f->type,
				      strlen(f->type)) < 0;
		if (f->samples)	/* its lines end in '\n' already */
			oom |= append(&out, &olen, &ocap, f->samples,
				      f->nsamples - 1) < 0;
	}
	for (size_t i = 0; i < nfams; i++)
		free(fams[i].help), free(fams[i].type), free(fams[i].samples);
	free(fams);
	if (oom || !out) {
		free(out);
		out = oom ? NULL : strdup("");
		olen = 0;
	}
	*len = olen;
	return out;
}
