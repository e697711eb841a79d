/* --webhook (user/webhook/webhook.h): the feature's hooks build the
 * bodies on the session's thread, a queue hands them to the sender's
 * thread, which POSTs them with libcurl one after another. */
#include "webhook.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feature/feature.h"
#include "monitor/monitor.h"
#include "report/report.h"
#include "spec/spec.h"
#include "util/json.h"
#include "util/lazylib.h"

#define QUEUE_MAX 1024		/* bodies waiting; more are dropped */
#define POST_TIMEOUT_MS 5000	/* one POST, connection included */
#define END_WAIT_MS 5000	/* what the end waits for the queue */

enum format { FMT_JSON, FMT_ALERTMANAGER };

struct webhook {
	const struct vg_run *run;
	char *url;
	enum format fmt;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *queue[QUEUE_MAX];
	int head, n;
	bool closing;
	uint64_t deadline_ns;	/* once closing: past it, drop */
	/* the sender's counts (under mu) */
	uint64_t sent, failed, dropped;
	bool warned;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* One POST; NULL when it went through (2xx), else why not */
static const char *post(CURL *c, const char *url, const char *body,
			long timeout_ms, char *why, size_t len)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	long code = 0;
	CURLcode r;

	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "vigil");
	r = curl_easy_perform(c);
	curl_slist_free_all(h);
	if (r != CURLE_OK) {
		snprintf(why, len, "%s", curl_easy_strerror(r));
		return why;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (code < 200 || code > 299) {
		snprintf(why, len, "the server answered HTTP %ld", code);
		return why;
	}
	return NULL;
}

static void *sender(void *arg)
{
	struct webhook *w = arg;
	CURL *c = curl_easy_init();
	char why[256];

	pthread_mutex_lock(&w->mu);
	for (;;) {
		char *body;
		long left = POST_TIMEOUT_MS;
		const char *err;

		while (!w->n && !w->closing)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->n)
			break;
		body = w->queue[w->head];
		w->head = (w->head + 1) % QUEUE_MAX;
		w->n--;
		if (w->closing) {
			uint64_t now = now_ns();

			left = now >= w->deadline_ns ? 0
			       : (long)((w->deadline_ns - now) / 1000000);
			if (left > POST_TIMEOUT_MS)
				left = POST_TIMEOUT_MS;
		}
		if (!left || !c) {
			w->dropped++;
			free(body);
			continue;
		}
		pthread_mutex_unlock(&w->mu);
		err = post(c, w->url, body, left, why, sizeof(why));
		free(body);
		pthread_mutex_lock(&w->mu);
		if (!err) {
			w->sent++;
			continue;
		}
		w->failed++;
		if (!w->warned) {	/* once; the end counts the rest */
			w->warned = true;
			fprintf(stderr, "vigil: webhook: POST to %s failed: %s\n",
				w->url, err);
		}
	}
	pthread_mutex_unlock(&w->mu);
	if (c)
		curl_easy_cleanup(c);
	return NULL;
}

static void enqueue(struct webhook *w, char *body)
{
	if (!body)
		return;
	pthread_mutex_lock(&w->mu);
	if (w->n == QUEUE_MAX) {
		w->dropped++;
		free(body);
	} else {
		w->queue[(w->head + w->n) % QUEUE_MAX] = body;
		w->n++;
		pthread_cond_signal(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
}

/* the body written to memstream f, queued: *body, its buffer, is set by
 * the fclose */
static void queue_body(struct webhook *w, FILE *f, char **body)
{
	if (fclose(f)) {	/* out of memory: the body is not whole */
		free(*body);
		return;
	}
	enqueue(w, *body);
}

/* now, as RFC 3339 in UTC */
static void stamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* the slice's parameters as a JSON object of their values' text */
static void slice_json(const struct vg_spec *spec, const struct vg_slice_view *s,
		       FILE *j)
{
	const struct vg_property *p = &spec->props[s->prop];
	bool first = true;

	fputc('{', j);
	for (int i = 0; i < p->nparams; i++) {
		char v[128];

		if (!(s->mask >> i & 1))
			continue;
		vg_format_value(spec, p->param_types[i], s->params[i], v,
				sizeof(v));
		fputs(first ? "" : ",", j);
		vg_json_str(j, p->params[i]);
		fputc(':', j);
		vg_json_str(j, v);
		first = false;
	}
	fputc('}', j);
}

/* "key":"value", with a comma before all but the first of an object */
static void field(FILE *f, const char *key, const char *value)
{
	fputc(',', f);
	vg_json_str(f, key);
	fputc(':', f);
	vg_json_str(f, value);
}

static void transition(void *state, const struct vg_run *run,
		       const struct vg_slice_view *s, int from,
		       const struct vg_mon_event *ev)
{
	struct webhook *w = state;
	const struct vg_spec *spec = vg_run_spec(run);
	const struct vg_property *p = &spec->props[s->prop];
	char slice[512], when[40], *at = NULL, *sj = NULL, *text = NULL,
	     *body = NULL;
	size_t n;
	FILE *f;

	if (p->states[s->state].kind != VG_STATE_VIOLATION ||
	    p->states[from].kind == VG_STATE_VIOLATION)
		return;
	if ((f = open_memstream(&at, &n))) {
		vg_event_text(spec, f, ev);
		fclose(f);
	}
	if (!(f = open_memstream(&sj, &n)))
		goto out;
	slice_json(spec, s, f);
	fclose(f);
	vg_slice_text(spec, s, ", ", slice, sizeof(slice));
	stamp(when, sizeof(when));
	if (asprintf(&text, "vigil: %s: violation: slice (%s) entered %s from %s at %s in pid %u%s",
		     p->name, slice, p->states[s->state].name,
		     p->states[from].name, at ? at : "?", ev->pid,
		     vg_run_target_stopped(run) ? ", stopped there" : "") < 0)
		text = NULL;
	if (!text || !(f = open_memstream(&body, &n)))
		goto out;
	if (w->fmt == FMT_ALERTMANAGER) {
		char pid[24];

		snprintf(pid, sizeof(pid), "%u", ev->pid);
		fputs("[{\"labels\":{\"alertname\":\"vigil_violation\"", f);
		field(f, "property", p->name);
		field(f, "state", p->states[s->state].name);
		field(f, "exe", vg_run_exe(run));
		field(f, "unit", vg_run_unit(run));
		field(f, "pid", pid);
		fputs("},\"annotations\":{\"summary\":", f);
		vg_json_str(f, text);
		field(f, "description", p->description);
		field(f, "slice", slice);
		field(f, "event", at ? at : "");
		fputs("}", f);
		field(f, "startsAt", when);
		fputs("}]", f);
	} else {
		fputs("{\"source\":\"vigil\",\"kind\":\"violation\"", f);
		field(f, "text", text);
		field(f, "property", p->name);
		field(f, "description", p->description);
		field(f, "state", p->states[s->state].name);
		field(f, "from", p->states[from].name);
		fprintf(f, ",\"slice\":%s", sj);
		field(f, "event", at ? at : "");
		fprintf(f, ",\"pid\":%u,\"tid\":%u", ev->pid, ev->tid);
		field(f, "exe", vg_run_exe(run));
		field(f, "unit", vg_run_unit(run));
		fprintf(f, ",\"stopped\":%s",
			vg_run_target_stopped(run) ? "true" : "false");
		field(f, "time", when);
		fputs("}", f);
	}
	queue_body(w, f, &body);
out:
	free(at);
	free(sj);
	free(text);
}

/* the run's end: its totals (the json form only: Alertmanager takes
 * alerts), then what is queued goes out, END_WAIT_MS at most */
static void end(void *state, const struct vg_run_end *e)
{
	struct webhook *w = state;
	char when[40], *body = NULL, *text = NULL;
	size_t n;
	FILE *f;

	if (e && w->fmt == FMT_JSON &&
	    asprintf(&text, "vigil: pid %d (%s): %s: %llu error%s, %llu inconclusive",
		     (int)vg_run_pid(w->run), vg_run_exe(w->run), e->how,
		     (unsigned long long)e->errors, e->errors == 1 ? "" : "s",
		     (unsigned long long)e->inconclusive) >= 0 &&
	    (f = open_memstream(&body, &n))) {
		stamp(when, sizeof(when));
		fputs("{\"source\":\"vigil\",\"kind\":\"end\"", f);
		field(f, "text", text);
		field(f, "how", e->how);
		fprintf(f, ",\"errors\":%llu,\"inconclusive\":%llu,\"pid\":%d",
			(unsigned long long)e->errors,
			(unsigned long long)e->inconclusive,
			(int)vg_run_pid(w->run));
		field(f, "exe", vg_run_exe(w->run));
		field(f, "unit", vg_run_unit(w->run));
		if (e->exited)
			fprintf(f, ",\"exit_code\":%d,\"exit_signal\":%d",
				e->exit_code, e->exit_signal);
		field(f, "time", when);
		fputs("}", f);
		queue_body(w, f, &body);
	}
	free(text);
	pthread_mutex_lock(&w->mu);
	w->closing = true;
	w->deadline_ns = now_ns() + END_WAIT_MS * 1000000ull;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	if (w->failed || w->dropped)
		fprintf(stderr, "vigil: webhook: %llu of %llu posts to %s failed, %llu not sent (the end waits %d s at most)\n",
			(unsigned long long)w->failed,
			(unsigned long long)(w->sent + w->failed + w->dropped),
			w->url, (unsigned long long)w->dropped,
			END_WAIT_MS / 1000);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->url);
	free(w);
}

static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	const char *url = vg_run_option(run, "webhook");
	const char *fmt = vg_run_option(run, "webhook-format");
	const char *why;
	struct webhook *w;

	*state = NULL;
	if (!url) {
		if (fmt)
			return vg_errf_code(e, VG_EXIT_USAGE, "--webhook-format without --webhook URL");
		return 0;
	}
	if ((why = vg_lazylib_curl_error()))
		return vg_errf_code(e, VG_EXIT_RUNTIME, "--webhook: libcurl cannot be loaded: %s (scripts/setup.sh installs it)", why);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!(w = calloc(1, sizeof(*w))) || !(w->url = strdup(url))) {
		free(w);
		return vg_errf(e, "out of memory");
	}
	w->run = run;
	w->fmt = fmt && !strcmp(fmt, "alertmanager") ? FMT_ALERTMANAGER : FMT_JSON;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if ((errno = pthread_create(&w->thread, NULL, sender, w))) {
		free(w->url);
		free(w);
		return vg_errf(e, "--webhook: a thread: %s", strerror(errno));
	}
	if (!vg_run_quiet(run))
		fprintf(stderr, "vigil: verdicts are POSTed to %s (%s)\n", url,
			w->fmt == FMT_ALERTMANAGER ? "Alertmanager's alerts" : "JSON");
	*state = w;
	return 0;
}

static const char *check_url(const char *url)
{
	return strncmp(url, "http://", 7) && strncmp(url, "https://", 8)
	       ? "is not an http:// or https:// URL" : NULL;
}

static const char *check_format(const char *fmt)
{
	return strcmp(fmt, "json") && strcmp(fmt, "alertmanager")
	       ? "is not json or alertmanager" : NULL;
}

static const struct vg_feature_opt opts[] = {
	{ "webhook", "URL", false,
	  "POST each violation and the run's end to URL as JSON, with a\n      \"text\" field as chat tools take it (docs/OPERATIONS.md)",
	  check_url },
	{ "webhook-format", "json|alertmanager", false,
	  "alertmanager: POST each violation as Alertmanager's alerts (URL\n      http://HOST:9093/api/v2/alerts); the end is not sent",
	  check_format },
	{ NULL },
};

const struct vg_feature vg_webhook_feature = {
	.name = "webhook",
	.opts = opts,
	.start = start,
	.transition = transition,
	.end = end,
};
