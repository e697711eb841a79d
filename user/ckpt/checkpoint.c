/* CRIU checkpoints: running criu, the image ring, the meta files.
 *
 * Why the caller must freeze the target and detach the uprobes first: a
 * uprobe is an int3 the kernel writes into the target's text page, and
 * CRIU saves that page as it is; the restored process, with no uprobe
 * behind the int3, dies of SIGTRAP at its first probed call (DESIGN.md).
 * Stopping the target before the probes go keeps every call either before
 * the checkpoint (seen) or after the resume (seen). */
#include "ckpt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/proc.h"
#include "proc/procinfo.h"
#include "util/clock.h"
#include "util/rundir.h"

#define DEFAULT_KEEP 8

struct vg_ckpt {
	pid_t pid;
	char exe[PATH_MAX];
	char dir[PATH_MAX];
	int keep;
	uint64_t min_gap_ns, last_ns;
	int next;		/* number of the next image */
	int *ring;		/* numbers of the kept images, oldest first */
	bool *ring_good;
	int nring;
	char last_good[PATH_MAX + 32];
};

const char *vg_criu_path(void)
{
	const char *env = getenv("VIGIL_CRIU");

	if (env && *env)
		return env;
	if (access("/usr/local/sbin/criu", X_OK) == 0)
		return "/usr/local/sbin/criu";
	return "criu";
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int mkdir_private(const char *path, struct vg_err *e)
{
	if (vg_mkdir_p(path, e))
		return -1;
	/* checkpoints hold the target's whole memory: ours alone */
	if (chmod(path, 0700))
		return vg_errf(e, "cannot make %s private: %s", path,
			       strerror(errno));
	return 0;
}

/* Start numbering after any image already in the directory, so that a
 * second run into the same --checkpoint-dir does not overwrite. */
static int highest_image(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int hi = 0, n;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "ck-%d", &n) == 1 && n > hi)
			hi = n;
	closedir(d);
	return hi;
}

struct vg_ckpt *vg_ckpt_new(pid_t pid, const char *exe,
			    const struct vg_ckpt_opts *o, struct vg_err *e)
{
	struct vg_ckpt *c = calloc(1, sizeof(*c));
	char run[PATH_MAX - 64];

	if (!c) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	c->pid = pid;
	snprintf(c->exe, sizeof(c->exe), "%s", exe);
	c->keep = o && o->keep > 0 ? o->keep : DEFAULT_KEEP;
	c->min_gap_ns = o ? o->min_gap_ms * 1000000ull : 0;
	if (o && o->dir) {
		snprintf(c->dir, sizeof(c->dir), "%s", o->dir);
	} else {
		if (vg_memdir(run, sizeof(run), e))
			goto fail;
		snprintf(c->dir, sizeof(c->dir), "%s/ckpt-%d", run, pid);
	}
	if (mkdir_private(c->dir, e))
		goto fail;
	c->next = highest_image(c->dir) + 1;
	c->ring = calloc(c->keep + 1, sizeof(int));
	c->ring_good = calloc(c->keep + 1, sizeof(bool));
	if (!c->ring || !c->ring_good) {
		vg_errf(e, "out of memory");
		goto fail;
	}
	return c;
fail:
	vg_ckpt_free(c);
	return NULL;
}

void vg_ckpt_free(struct vg_ckpt *c)
{
	if (!c)
		return;
	free(c->ring);
	free(c->ring_good);
	free(c);
}

bool vg_ckpt_due(const struct vg_ckpt *c)
{
	return !c->last_ns ||
	       vg_now_ns(CLOCK_MONOTONIC) - c->last_ns >= c->min_gap_ns;
}

bool vg_ckpt_gap_ok(uint64_t *last_ns, uint64_t gap_ms)
{
	uint64_t now = vg_now_ns(CLOCK_MONOTONIC);

	if (*last_ns && now - *last_ns < gap_ms * 1000000ull)
		return false;
	*last_ns = now;
	return true;
}

/* Run argv, its output into log, with the descriptors keep[] inherited
 * (they are close-on-exec in vigil); returns the exit status, or -1. */
static int run_logged(char *const argv[], const char *log, const int *keep,
		      int nkeep)
{
	pid_t child = fork();
	int st;

	if (child < 0)
		return -1;
	if (child == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		for (int i = 0; i < nkeep; i++)
			fcntl(keep[i], F_SETFD, 0);
		vg_proc_unblock_signals();
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The line of a CRIU log that says what went wrong: its first error. */
static void first_error(const char *log, char *out, size_t len)
{
	FILE *f = fopen(log, "r");
	char line[512];

	snprintf(out, len, "see %s", log);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		/* criu says it cannot raise its own descriptor limit in some
		 * containers, and goes on: not what went wrong */
		if ((strstr(line, "Error") && !strstr(line, "RLIMIT_NOFILE")) ||
		    strstr(line, "cannot run")) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, len, "%s (log: %s)", line, log);
			break;
		}
	fclose(f);
}

/* Is pid the leader of its own session? CRIU needs --shell-job for a
 * process whose session (a shell's terminal) is outside the dump. */
static bool own_session(pid_t pid)
{
	return getsid(pid) == pid;
}

static int write_meta(const char *img, const struct vg_ckpt *c,
		      const char *reason, uint64_t events, bool good,
		      bool shell_job, bool has_state, struct vg_err *e)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/meta", img);
	f = fopen(path, "w");
	if (!f)
		return vg_errf(e, "cannot write %s: %s", path, strerror(errno));
	fprintf(f, "pid=%d\nexe=%s\nreason=%s\nevents=%llu\ntime_ns=%llu\n"
		   "good=%d\nshell_job=%d\nstate=%d\n",
		c->pid, c->exe, reason, (unsigned long long)events,
		(unsigned long long)vg_now_ns(CLOCK_REALTIME), good, shell_job,
		has_state);
	if (fclose(f))
		return vg_errf(e, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

static void image_path(const struct vg_ckpt *c, int n, char *out, size_t len)
{
	snprintf(out, len, "%s/ck-%04d", c->dir, n);
}

/* Keep the last `keep` images; a full dump each (this kernel has no
 * soft-dirty tracking for CRIU's incremental dumps, see docs/reference/checkpoints.md),
 * so dropping the oldest never breaks a newer one. */
static void ring_push(struct vg_ckpt *c, int n, bool good)
{
	char path[PATH_MAX + 32];

	if (c->nring == c->keep) {
		image_path(c, c->ring[0], path, sizeof(path));
		rm_tree(path);
		memmove(c->ring, c->ring + 1, (c->keep - 1) * sizeof(int));
		memmove(c->ring_good, c->ring_good + 1,
			(c->keep - 1) * sizeof(bool));
		c->nring--;
	}
	c->ring[c->nring] = n;
	c->ring_good[c->nring++] = good;
	c->last_good[0] = 0;
	for (int i = c->nring - 1; i >= 0; i--)
		if (c->ring_good[i]) {
			image_path(c, c->ring[i], c->last_good,
				   sizeof(c->last_good));
			break;
		}
}

int vg_ckpt_take(struct vg_ckpt *c, const char *reason, uint64_t events,
		 bool good, vg_ckpt_state_fn state, void *ctx, char *out,
		 size_t outlen, struct vg_err *e)
{
	char img[PATH_MAX + 32], log[PATH_MAX + 64], pidarg[16], why[700];
	char spath[PATH_MAX + 64];
	struct vg_err oe = { 0 };
	bool shell_job = !own_session(c->pid);
	struct vg_outfiles_ttys ttys = { 0 };
	char *argv[16 + 2 * VG_OUTFILES_MAX];
	int n = c->next++, a = 0, rc;
	FILE *f;

	c->last_ns = vg_now_ns(CLOCK_MONOTONIC);
	if (vg_proc_session_outside(c->pid)) {
		c->next--;
		return vg_errf(e, "pid %d cannot be checkpointed: its session "
			       "leader is outside its pid namespace (it was "
			       "started without setsid under an init that has "
			       "no session), and CRIU cannot dump that; start "
			       "it as its own session (setsid, or a systemd "
			       "service)", (int)c->pid);
	}
	image_path(c, n, img, sizeof(img));
	if (mkdir_private(img, e))
		return -1;
	snprintf(pidarg, sizeof(pidarg), "%d", c->pid);
	snprintf(log, sizeof(log), "%s/dump.log", img);
	argv[a++] = (char *)vg_criu_path();
	argv[a++] = "dump";
	argv[a++] = "-t";
	argv[a++] = pidarg;
	argv[a++] = "-D";
	argv[a++] = img;
	argv[a++] = "--leave-running";
	/* the kernel maps a [uprobes] page into a process that hit a uprobe,
	 * for good; CRIU refuses it without this (CRIU 4.2) */
	argv[a++] = "--allow-uprobes";
	argv[a++] = "-v2";
	if (shell_job)
		argv[a++] = "--shell-job";
	/* the files it writes to, for the restore (outfiles.c): read
	 * while it is stopped, before the dump; without them a restore
	 * after the file grew is refused, as CRIU alone would. And its
	 * terminals, whose masters are not in the dump; a shell job's
	 * terminal is CRIU's own business (--shell-job) */
	vg_outfiles_save(c->pid, img, shell_job ? NULL : &ttys, &oe);
	for (int i = 0; i < ttys.n; i++) {
		argv[a++] = "--external";
		argv[a++] = ttys.id[i];
	}
	argv[a] = NULL;
	rc = run_logged(argv, log, NULL, 0);
	if (rc != 0) {
		char kept[PATH_MAX + 64];

		/* keep the log where the user can read it, drop the rest */
		snprintf(kept, sizeof(kept), "%s/failed-dump-%04d.log", c->dir, n);
		rename(log, kept);
		first_error(kept, why, sizeof(why));
		rm_tree(img);
		return vg_errf(e, "criu dump exited %d: %s",
			       rc, why);
	}
	if (state) {
		snprintf(spath, sizeof(spath), "%s/monitor.state", img);
		f = fopen(spath, "w");
		if (!f || state(ctx, f, e) || fclose(f)) {
			if (f)
				fclose(f);
			if (!e->msg[0])
				vg_errf(e, "cannot write %s: %s", spath,
					strerror(errno));
			rm_tree(img);
			return -1;
		}
	}
	if (write_meta(img, c, reason, events, good, shell_job, state != NULL,
		       e)) {
		rm_tree(img);
		return -1;
	}
	ring_push(c, n, good);
	snprintf(out, outlen, "%s", img);
	return 0;
}

const char *vg_ckpt_last_good(const struct vg_ckpt *c)
{
	return c->last_good[0] ? c->last_good : NULL;
}

int vg_ckpt_count(const struct vg_ckpt *c)
{
	return c->nring;
}

int vg_ckpt_read_meta(const char *dir, struct vg_ckpt_meta *m,
		      struct vg_err *e)
{
	char path[PATH_MAX + 16], line[4200];
	unsigned long long u;
	int i;
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/meta", dir);
	f = fopen(path, "r");
	if (!f)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s is not a vigil checkpoint: cannot read %s: %s",
				    dir, path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "pid=%d", &i) == 1)
			m->pid = i;
		else if (!strncmp(line, "exe=", 4))
			snprintf(m->exe, sizeof(m->exe), "%.4095s", line + 4);
		else if (!strncmp(line, "reason=", 7))
			snprintf(m->reason, sizeof(m->reason), "%.255s", line + 7);
		else if (sscanf(line, "events=%llu", &u) == 1)
			m->events = u;
		else if (sscanf(line, "time_ns=%llu", &u) == 1)
			m->time_ns = u;
		else if (sscanf(line, "good=%d", &i) == 1)
			m->good = i;
		else if (sscanf(line, "state=%d", &i) == 1)
			m->has_state = i;
	}
	fclose(f);
	if (m->pid <= 0)
		return vg_errf_code(e, VG_EXIT_USAGE, "%s: no pid in the meta file",
				    path);
	return 0;
}

pid_t vg_ckpt_restore(const char *dir, struct vg_err *e)
{
	struct vg_outfiles of;
	pid_t pid;

	if (vg_outfiles_open(dir, 0, &of, e))
		return -1;
	pid = vg_ckpt_restore_with(dir, &of, e);
	vg_outfiles_close(&of);
	return pid;
}

pid_t vg_ckpt_restore_with(const char *dir, const struct vg_outfiles *of,
			   struct vg_err *e)
{
	char log[PATH_MAX + 32], pidfile[PATH_MAX + 32], why[700], meta[PATH_MAX + 16];
	char line[64];
	char *argv[16 + 2 * VG_OUTFILES_MAX];
	bool shell_job = false;
	int a = 0, rc, pid = -1;
	FILE *f;

	snprintf(meta, sizeof(meta), "%s/meta", dir);
	if ((f = fopen(meta, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (!strcmp(line, "shell_job=1\n"))
				shell_job = true;
		fclose(f);
	}
	snprintf(log, sizeof(log), "%s/restore.log", dir);
	snprintf(pidfile, sizeof(pidfile), "%s/restore.pid", dir);
	unlink(pidfile);
	argv[a++] = (char *)vg_criu_path();
	argv[a++] = "restore";
	argv[a++] = "-D";
	argv[a++] = (char *)dir;
	argv[a++] = "--restore-detached";
	argv[a++] = "--leave-stopped";
	argv[a++] = "--allow-uprobes";
	argv[a++] = "--pidfile";
	argv[a++] = pidfile;
	argv[a++] = "-v2";
	if (shell_job)
		argv[a++] = "--shell-job";
	for (int i = 0; i < of->n; i++) {
		argv[a++] = "--inherit-fd";
		argv[a++] = (char *)of->arg[i];
	}
	argv[a] = NULL;
	rc = run_logged(argv, log, of->fd, of->n);
	if (rc != 0) {
		first_error(log, why, sizeof(why));
		return vg_errf(e, "restore failed: criu restore exited %d: %s",
			       rc, why);
	}
	f = fopen(pidfile, "r");
	if (!f || fscanf(f, "%d", &pid) != 1)
		pid = -1;
	if (f)
		fclose(f);
	if (pid <= 0)
		return vg_errf(e, "restore: criu wrote no pid to %s", pidfile);
	return pid;
}

int vg_ckpt_image(const struct vg_ckpt *c, int i, char *out, size_t len)
{
	if (!c || i < 0 || i >= c->nring)
		return -1;
	image_path(c, c->ring[i], out, len);
	return c->ring[i];
}
