/* The agent's supervisor loop: sessions started, reaped, restarted;
 * SIGHUP reloads the configuration; SIGTERM stops every session (each
 * detaches: the services run on). */
#include "agent/agent.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "agent/config.h"
#include "agent/reload.h"
#include "metrics/metrics.h"
#include "report/oplog.h"
#include "util/clock.h"

/* a session that ended is started again no sooner than this; one that
 * failed (status 2 or 3, a signal), after twice the last gap, up to
 * MAX_GAP: a unit whose spec does not fit its program does not spin */
#define RESTART_GAP_NS (2 * 1000000000ull)
#define MAX_GAP_NS (64 * 1000000000ull)
#define STOP_WAIT_MS 5000

struct unit {
	struct vg_agent_unit u;
	pid_t child;		/* its session, or 0 */
	pid_t target;		/* pidfile: the pid it was started on */
	uint64_t ended_ns;	/* when its last session ended */
	uint64_t gap_ns;	/* and how long to wait before the next */
	uint64_t starts;
	struct vg_agent_specs specs;	/* what its session was given */
};

struct agent {
	const struct vg_agent_opts *o;
	struct unit *units;
	int nunits;
	struct vg_oplog *log;
	struct vg_metrics *metrics;
	char metrics_dir[PATH_MAX];
	uint64_t reloads, reload_errors;
};

static void vsay(struct agent *a, int prio, const struct unit *un,
		 const char *event, const char *fmt, va_list ap)
{
	char msg[8192];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "vigil agent: %s\n", msg);
	vg_oplog_send(a->log, prio, msg, "VIGIL_EVENT", event,
		      "VIGIL_UNIT", un ? un->u.name : "", NULL);
}

static void say(struct agent *a, int prio, const struct unit *un,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void say(struct agent *a, int prio, const struct unit *un,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(a, prio, un, "agent", fmt, ap);
	va_end(ap);
}

/* What a reload did (VIGIL_EVENT=reload). */
static void said_reload(struct agent *a, int prio, const struct unit *un,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void said_reload(struct agent *a, int prio, const struct unit *un,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(a, prio, un, "reload", fmt, ap);
	va_end(ap);
}

struct note_ctx {
	struct agent *a;
	const struct unit *un;
};

static void note_step(void *ctx, const char *msg)
{
	struct note_ctx *n = ctx;

	said_reload(n->a, 5, n->un, "%s", msg);
}

static void metrics_path(const struct agent *a, const char *name, char *buf,
			 size_t len)
{
	snprintf(buf, len, "%s/%s.prom", a->metrics_dir, name);
}

/* The agent's own figures, a file among the sessions'. */
static void write_own_metrics(struct agent *a)
{
	char path[PATH_MAX + 300], tmp[PATH_MAX + 320];
	int running = 0;
	uint64_t rss;
	double cpu;
	FILE *f;

	for (int i = 0; i < a->nunits; i++)
		running += a->units[i].child > 0;
	metrics_path(a, "agent", path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "we")))
		return;
	vg_metrics_family(f, "vigil_agent_units", "gauge",
			  "Configuration files (units) of the agent, and those with a session running.");
	vg_metrics_sample(f, "vigil_agent_units", a->nunits, "status",
			  "configured", NULL);
	vg_metrics_sample(f, "vigil_agent_units", running, "status",
			  "running", NULL);
	vg_metrics_family(f, "vigil_agent_reloads_total", "counter",
			  "Configuration reloads (SIGHUP), and those refused for an error.");
	vg_metrics_sample(f, "vigil_agent_reloads_total", (double)a->reloads,
			  "result", "ok", NULL);
	vg_metrics_sample(f, "vigil_agent_reloads_total",
			  (double)a->reload_errors, "result", "error", NULL);
	/* the agent's own, without a unit (each session's has its unit) */
	vg_metrics_self(&cpu, &rss);
	vg_metrics_family(f, "vigil_cpu_seconds_total", "counter",
			  "CPU time of vigil itself (user and system).");
	vg_metrics_sample(f, "vigil_cpu_seconds_total", cpu, NULL);
	vg_metrics_family(f, "vigil_resident_memory_bytes", "gauge",
			  "Resident memory of vigil itself.");
	vg_metrics_sample(f, "vigil_resident_memory_bytes", (double)rss, NULL);
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

/* Per scrape, on the server's thread: every *.prom of the directory as
 * one body. Reads files only (the sessions and the loop write them, each
 * renamed into place whole). */
static char *scrape(void *ctx, size_t *len)
{
	struct agent *a = ctx;
	char *bodies[256], path[PATH_MAX + 300], *out;
	size_t n = 0, blen;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	if (!(dir = opendir(a->metrics_dir)))
		return NULL;
	while ((d = readdir(dir)) && n < 256) {
		size_t l = strlen(d->d_name);

		if (l < 6 || strcmp(d->d_name + l - 5, ".prom"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", a->metrics_dir, d->d_name);
		if (!(f = fopen(path, "re")))
			continue;	/* its session just ended */
		bodies[n] = NULL;
		blen = 0;
		if (getdelim(&bodies[n], &blen, 0, f) > 0)
			n++;
		else
			free(bodies[n]);
		fclose(f);
	}
	closedir(dir);
	out = vg_metrics_merge((const char *const *)bodies, n, len);
	for (size_t i = 0; i < n; i++)
		free(bodies[i]);
	return out;
}

/* The pid a pidfile names, if that process is alive; 0 otherwise. */
static pid_t read_pidfile(const char *path)
{
	char buf[32] = "";
	long pid;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	pid = strtol(buf, NULL, 10);
	if (pid <= 0 || pid > INT_MAX || (kill((pid_t)pid, 0) && errno == ESRCH))
		return 0;
	return (pid_t)pid;
}

static const char *on_violation(const char *reaction)
{
	/* log: every violation is reported and the service goes on */
	return !strcmp(reaction, "log") ? "continue" : reaction;
}

static void start(struct agent *a, struct unit *un)
{
	const struct vg_agent_unit *u = &un->u;
	char *argv[3 * VG_AGENT_MAX_SPECS + 2 * VG_AGENT_MAX_DEFINES + 32];
	char povs[VG_AGENT_MAX_SPECS][300];
	char ov[64], tier[32], mfile[PATH_MAX + 300], pid[24], journal[PATH_MAX + 300];
	pid_t target = 0, child, agent;
	sigset_t none;
	int n = 0;

	if (u->pidfile[0] && !(target = read_pidfile(u->pidfile)))
		return;		/* not running: looked at again later */
	argv[n++] = (char *)a->o->vigil;
	argv[n++] = u->exe[0] ? "watch" : "attach";
	for (int i = 0; i < u->nspecs; i++)
		argv[n++] = u->specs[i];
	for (int i = 0; i < u->ndefines; i++) {
		argv[n++] = "-D";
		argv[n++] = u->defines[i];
	}
	snprintf(ov, sizeof(ov), "--on-violation=%s", on_violation(u->reaction));
	snprintf(tier, sizeof(tier), "--tier=%s", u->tier);
	metrics_path(a, u->name, mfile, sizeof(mfile));
	argv[n++] = ov;
	for (int i = 0; i < u->nprop_reactions; i++) {
		/* the session takes log as continue, as for the default */
		snprintf(povs[i], sizeof(povs[i]), "--on-violation=%s",
			 u->prop_reactions[i]);
		argv[n++] = povs[i];
	}
	argv[n++] = tier;
	argv[n++] = "--unit";
	argv[n++] = (char *)u->name;
	argv[n++] = "--metrics-file";
	argv[n++] = mfile;
	if (a->o->log_path) {
		snprintf(journal, sizeof(journal), "--journal=%s", a->o->log_path);
		argv[n++] = journal;
	} else {
		argv[n++] = "--journal";
	}
	if (u->checkpoint_dir[0]) {
		argv[n++] = "--checkpoint-dir";
		argv[n++] = (char *)u->checkpoint_dir;
	}
	if (u->exe[0]) {
		argv[n++] = "--exe";
		argv[n++] = (char *)u->exe;
		if (u->same_build)
			argv[n++] = "--same-build";
	} else {
		snprintf(pid, sizeof(pid), "%d", target);
		argv[n++] = "-p";
		argv[n++] = pid;
	}
	argv[n] = NULL;
	agent = getpid();
	if ((child = fork()) < 0) {
		say(a, 3, un, "%s: cannot start a session: %s", u->name,
		    strerror(errno));
		return;
	}
	if (child == 0) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* an agent killed outright takes its sessions with it: each
		 * detaches on SIGTERM, leaving its service running */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != agent)
			_exit(0);
		execv(a->o->vigil, argv);
		fprintf(stderr, "vigil agent: %s: exec %s: %s\n", u->name,
			a->o->vigil, strerror(errno));
		_exit(127);
	}
	un->child = child;
	un->target = target;
	un->starts++;
	if (target)
		say(a, 6, un, "%s: session %d started on pid %d (%s), %d specs, reaction %s",
		    u->name, child, target, u->pidfile, u->nspecs, u->reaction);
	else
		say(a, 6, un, "%s: session %d started on every process of %s, %d specs, reaction %s",
		    u->name, child, u->exe, u->nspecs, u->reaction);
}

/* SIGTERM: a session detaches (its target runs on) and exits. */
static void stop(struct agent *a, struct unit *un)
{
	char path[PATH_MAX + 300];
	int status;

	if (un->child <= 0)
		return;
	kill(un->child, SIGTERM);
	for (int ms = 0; ms < STOP_WAIT_MS; ms += 10) {
		if (waitpid(un->child, &status, WNOHANG) == un->child)
			goto gone;
		usleep(10000);
	}
	say(a, 4, un, "%s: session %d did not end in %d ms: killed", un->u.name,
	    un->child, STOP_WAIT_MS);
	kill(un->child, SIGKILL);
	waitpid(un->child, &status, 0);
gone:
	un->child = 0;
	metrics_path(a, un->u.name, path, sizeof(path));
	unlink(path);
}

static void reap(struct agent *a)
{
	int status;
	pid_t p;

	while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
		for (int i = 0; i < a->nunits; i++) {
			struct unit *un = &a->units[i];

			if (un->child != p)
				continue;
			un->child = 0;
			un->ended_ns = vg_now_ns(CLOCK_MONOTONIC);
			if (WIFEXITED(status) && WEXITSTATUS(status) < 2)
				un->gap_ns = RESTART_GAP_NS;
			else
				un->gap_ns = un->gap_ns * 2 > MAX_GAP_NS ? MAX_GAP_NS
					     : un->gap_ns ? un->gap_ns * 2
					     : RESTART_GAP_NS;
			/* its metrics file stays, with the session's last
			 * figures (a violation that stopped the process and
			 * ended the session is still counted), until the
			 * unit's next session replaces it */
			if (WIFEXITED(status))
				say(a, WEXITSTATUS(status) >= 2 ? 3 : 5, un,
				    "%s: session %d ended with status %d%s",
				    un->u.name, p, WEXITSTATUS(status),
				    WEXITSTATUS(status) == 1 ? " (errors were reported)"
				    : WEXITSTATUS(status) >= 2 ? " (an error: see its messages above)"
				    : "");
			else
				say(a, 3, un, "%s: session %d killed by signal %d",
				    un->u.name, p, WTERMSIG(status));
		}
	}
}

/* Units without a session: a pidfile's process (re)appeared, or an
 * exe's session ended and may start again. */
static void start_idle(struct agent *a)
{
	uint64_t now = vg_now_ns(CLOCK_MONOTONIC);
	pid_t p;

	for (int i = 0; i < a->nunits; i++) {
		struct unit *un = &a->units[i];

		if (un->child > 0 ||
		    (un->ended_ns && now - un->ended_ns < un->gap_ns))
			continue;
		/* the same process again only if it ended its session for
		 * a reason of its own: not one that violated and runs on */
		if (un->u.pidfile[0] &&
		    (!(p = read_pidfile(un->u.pidfile)) ||
		     (p == un->target && un->ended_ns)))
			continue;
		start(a, un);
	}
}

static bool specs_same(const struct vg_agent_specs *x,
		       const struct vg_agent_specs *y)
{
	if (x->n != y->n)
		return false;
	for (int i = 0; i < x->n; i++)
		if (x->s[i].files != y->s[i].files)	/* includes too */
			return false;
	return true;
}

/* A changed unit whose process stays the same: its specs' changes made
 * in its running session (reload.c), so that the properties of the specs
 * that did not change keep their slices. False (said why): restart it. */
static bool reload_in_place(struct agent *a, struct unit *old,
			    struct unit *nu)
{
	struct note_ctx n = { a, old };
	struct vg_err e = { 0 };
	const char *why = NULL;
	int changed;

	if (old->child <= 0)
		return false;	/* no session: the next one has it all */
	/* an exe unit (vigil watch) takes them as a pidfile's does, into
	 * every process it watches */
	if (strcmp(old->u.exe, nu->u.exe))
		why = "its exe changed";
	else if (old->u.same_build != nu->u.same_build)
		why = "its same-build changed";
	else if (strcmp(old->u.pidfile, nu->u.pidfile))
		why = "its pidfile changed";
	else if (strcmp(old->u.tier, nu->u.tier))
		why = "its tier changed";
	else if (strcmp(old->u.checkpoint_dir, nu->u.checkpoint_dir))
		why = "its checkpoint-dir changed";
	else if (vg_agent_reload_specs(old->child, old->u.name, &old->specs,
				       &nu->specs, &changed, note_step, &n, &e))
		why = e.msg;
	if (why) {
		said_reload(a, 5, old, "%s: changed: its session restarts (not reloaded in place: %s)",
			    old->u.name, why);
		return false;
	}
	said_reload(a, 5, old, "%s: changed: reloaded in session %d, %d spec%s changed; the others' properties keep their slices",
		    old->u.name, old->child, changed, changed == 1 ? "" : "s");
	return true;
}

static void reload(struct agent *a)
{
	struct vg_agent_conf conf;
	struct vg_err e = { 0 };
	struct unit *nu;
	int kept = 0, in_place = 0, restarted = 0, added = 0, removed = 0;

	if (vg_agent_conf_load(a->o->config_dir, &conf, &e)) {
		a->reload_errors++;
		say(a, 3, NULL, "reload refused, the running configuration stays: %s",
		    e.msg);
		return;
	}
	if (!(nu = calloc(conf.nunits + 1, sizeof(*nu)))) {
		vg_agent_conf_free(&conf);
		return;
	}
	for (int i = 0; i < conf.nunits; i++) {
		nu[i].u = conf.units[i];
		vg_agent_specs_read(&nu[i].u, &nu[i].specs);
		for (int j = 0; j < a->nunits; j++) {
			struct unit *old = &a->units[j];
			bool same = old->u.fingerprint == nu[i].u.fingerprint &&
				    specs_same(&old->specs, &nu[i].specs);

			if (strcmp(old->u.name, nu[i].u.name))
				continue;
			if (same || reload_in_place(a, old, &nu[i])) {
				/* its session goes on */
				nu[i].child = old->child;
				nu[i].target = old->target;
				nu[i].ended_ns = old->ended_ns;
				nu[i].gap_ns = old->gap_ns;
				nu[i].starts = old->starts;
				old->child = 0;
				kept += same;
				in_place += !same;
			} else {
				if (old->child <= 0)
					said_reload(a, 5, old, "%s: changed", old->u.name);
				stop(a, old);
				restarted++;
			}
			old->u.name[0] = 0;	/* matched */
		}
	}
	for (int j = 0; j < a->nunits; j++) {
		if (a->units[j].u.name[0]) {
			said_reload(a, 5, &a->units[j], "%s: removed: its session stops",
				    a->units[j].u.name);
			stop(a, &a->units[j]);
			removed++;
		}
		vg_agent_specs_free(&a->units[j].specs);
		vg_agent_unit_free(&a->units[j].u);
	}
	free(a->units);
	free(conf.units);	/* the units moved into nu */
	a->units = nu;
	a->nunits = conf.nunits;
	added = conf.nunits - kept - in_place - restarted;
	a->reloads++;
	said_reload(a, 5, NULL, "reloaded %s: %d unchanged, %d changed in place, %d restarted, %d added, %d removed",
		    a->o->config_dir, kept, in_place, restarted, added, removed);
	start_idle(a);
	write_own_metrics(a);
}

static int setup_dirs(struct agent *a, struct vg_err *e)
{
	if (mkdir(a->o->state_dir, 0700) && errno != EEXIST)
		return vg_errf(e, "--state-dir %s: %s", a->o->state_dir,
			       strerror(errno));
	snprintf(a->metrics_dir, sizeof(a->metrics_dir), "%s/metrics",
		 a->o->state_dir);
	if (mkdir(a->metrics_dir, 0700) && errno != EEXIST)
		return vg_errf(e, "%s: %s", a->metrics_dir, strerror(errno));
	return 0;
}

int vg_agent_run(const struct vg_agent_opts *o, struct vg_err *e)
{
	struct agent a = { .o = o };
	struct vg_agent_conf conf;
	struct signalfd_siginfo si;
	sigset_t set, old;
	int sfd = -1, rc = -1;
	bool done = false;

	if (vg_agent_conf_load(o->config_dir, &conf, e))
		return -1;
	if (!(a.units = calloc(conf.nunits + 1, sizeof(*a.units)))) {
		vg_agent_conf_free(&conf);
		return vg_errf(e, "out of memory");
	}
	for (int i = 0; i < conf.nunits; i++) {
		a.units[i].u = conf.units[i];
		vg_agent_specs_read(&a.units[i].u, &a.units[i].specs);
	}
	a.nunits = conf.nunits;
	free(conf.units);
	if (setup_dirs(&a, e) ||
	    !(a.log = vg_oplog_open(o->log_path, 0, e)))
		goto out;
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	if ((sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
		vg_errf(e, "signalfd: %s", strerror(errno));
		goto out;
	}
	if (o->metrics_addr) {
		if (!(a.metrics = vg_metrics_start(o->metrics_addr,
						   o->metrics_port, e)))
			goto out;
		vg_metrics_set_source(a.metrics, scrape, &a);
		fprintf(stderr, "vigil agent: metrics at http://%s:%d/metrics\n",
			o->metrics_addr, vg_metrics_port(a.metrics));
	}
	say(&a, 6, NULL, "started: %d units from %s, verdicts to %s", a.nunits,
	    o->config_dir, vg_oplog_where(a.log));
	start_idle(&a);
	write_own_metrics(&a);
	while (!done) {
		struct pollfd p = { .fd = sfd, .events = POLLIN };

		if (poll(&p, 1, 1000) > 0 &&
		    read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				reap(&a);
			else if (si.ssi_signo == SIGHUP)
				reload(&a);
			else
				done = true;
		}
		reap(&a);	/* SIGCHLDs coalesce */
		start_idle(&a);
		write_own_metrics(&a);
	}
	say(&a, 5, NULL, "stopping: %s", strsignal(si.ssi_signo));
	for (int i = 0; i < a.nunits; i++)
		stop(&a, &a.units[i]);
	rc = 0;
out:
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	vg_metrics_stop(a.metrics);
	if (a.metrics_dir[0]) {
		char path[PATH_MAX + 300];

		metrics_path(&a, "agent", path, sizeof(path));
		unlink(path);
	}
	for (int i = 0; i < a.nunits; i++) {
		vg_agent_specs_free(&a.units[i].specs);
		vg_agent_unit_free(&a.units[i].u);
	}
	free(a.units);
	vg_oplog_close(a.log);
	return rc;
}
