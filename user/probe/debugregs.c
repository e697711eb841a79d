/* Do the debug registers fire? (user/probe/debugregs.h) */
#include "debugregs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "util/rundir.h"

#define WRITES 16
#define STALE_TRIES 8

struct check {
	enum vg_regs got;
	uint64_t hits, after_step;
	int err;
};

/* The watched word, on a page of its own: between the last write and the
 * single step nothing may touch that page (QEMU forgets a hit at an
 * access to a watched page that does not match it). */
static struct {
	volatile uint64_t word;
	char rest[4096 - 8];
} page __attribute__((aligned(4096)));

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_EFL] &= ~0x100L;	/* TF */
}

/* One single step of this thread: the trap flag, set by popf, traps after
 * the next instruction; SIGTRAP's handler clears it. */
static void single_step(void)
{
	struct sigaction sa = { .sa_sigaction = on_trap,
				.sa_flags = SA_SIGINFO }, old;

	if (sigaction(SIGTRAP, &sa, &old))
		return;
	__asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq\n\tnop"
			 ::: "memory", "cc");
	sigaction(SIGTRAP, &old, NULL);
}

/* On a thread of its own, as CRIU arms its check in a traced child: a
 * breakpoint opened for the calling thread only, WRITES writes, the
 * count. Counting, not sampling: the count is the number of hits. Then a
 * single step, which must not count: one that does is a stale report.
 * A stale report needs the hit QEMU noted to survive until the step, and
 * something between them can make it forget (the QEMU lane once saw
 * this check answer fire where the tests' oracle saw a stale report;
 * vigil's BPF load runs on a thread beside it): a sound step is asked
 * again, STALE_TRIES times. A step cannot count a hit no write made, so
 * one stale step is enough. */
static void *check_thread(void *arg)
{
	struct check *c = arg;
	struct perf_event_attr a = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(a),
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uint64_t)(uintptr_t)&page.word,
		.bp_len = HW_BREAKPOINT_LEN_8,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);
	uint64_t base = 0;

	if (fd < 0) {
		c->err = errno;
		return NULL;
	}
	/* (one breakpoint for every try: counts since the last try's) */
	for (int k = 0; k < STALE_TRIES && c->got != VG_REGS_STALE; k++) {
		uint64_t total, stepped;

		for (int i = 0; i < WRITES; i++)
			page.word++;
		if (read(fd, &total, sizeof(total)) != (ssize_t)sizeof(total)) {
			c->err = errno;
			break;
		}
		c->hits = total - base;
		if (!c->hits) {		/* (a later try: the first's answer) */
			if (!k)
				c->got = VG_REGS_SILENT;
			break;
		}
		single_step();
		if (read(fd, &stepped, sizeof(stepped)) !=
		    (ssize_t)sizeof(stepped)) {
			c->got = VG_REGS_FIRE;
			break;
		}
		c->after_step = stepped - base;
		c->got = stepped > total ? VG_REGS_STALE : VG_REGS_FIRE;
		base = stepped;
	}
	close(fd);
	return NULL;
}

enum vg_regs vg_debug_regs_check(char *why, size_t len)
{
	static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
	struct check c = { .got = VG_REGS_UNKNOWN };
	pthread_t t;
	int rc;

	/* (the watched page is one for the process) */
	pthread_mutex_lock(&one_at_a_time);
	rc = pthread_create(&t, NULL, check_thread, &c);
	if (!rc)
		pthread_join(t, NULL);
	pthread_mutex_unlock(&one_at_a_time);
	if (rc) {
		snprintf(why, len, "could not start the check's thread");
		return VG_REGS_UNKNOWN;
	}
	if (c.got == VG_REGS_FIRE)
		snprintf(why, len, "checked: a watched variable's %d writes counted %llu",
			 WRITES, (unsigned long long)c.hits);
	else if (c.got == VG_REGS_STALE)
		snprintf(why, len, "%s (%d writes counted %llu, and a single step after them %llu more)",
			 VG_STALE_REGS_WHY, WRITES,
			 (unsigned long long)c.hits,
			 (unsigned long long)(c.after_step - c.hits));
	else if (c.got == VG_REGS_SILENT)
		snprintf(why, len, "%s (0 of %d writes counted)",
			 VG_NO_REGS_WHY, WRITES);
	else
		snprintf(why, len, "not checked: a hardware breakpoint could not be opened: %s%s",
			 strerror(c.err),
			 c.err == EACCES || c.err == EPERM
				 ? " (vigil needs CAP_PERFMON)" : "");
	return c.got;
}

/* /proc/sys/kernel/random/boot_id: what the cached answer is good for */
static int boot_id(char *out, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	int ok = f && fgets(out, (int)len, f);

	if (f)
		fclose(f);
	if (!ok)
		return -1;
	out[strcspn(out, "\n")] = 0;
	return 0;
}

static const char *const names[] = {
	[VG_REGS_FIRE] = "fire", [VG_REGS_SILENT] = "silent",
	[VG_REGS_STALE] = "stale",
};

static enum vg_regs cached(const char *path, const char *boot)
{
	char line[128], id[64], what[16];
	FILE *f = fopen(path, "re");
	enum vg_regs r = VG_REGS_UNKNOWN;

	if (!f)
		return r;
	if (fgets(line, sizeof(line), f) &&
	    sscanf(line, "%63s %15s", id, what) == 2 && !strcmp(id, boot))
		for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
			if (names[i] && !strcmp(what, names[i]))
				r = (enum vg_regs)i;
	fclose(f);
	return r;
}

/* written whole then renamed: a vigil starting beside reads all or none */
static void keep(const char *path, const char *boot, enum vg_regs r)
{
	char tmp[4300];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	if (!(f = fopen(tmp, "we")))
		return;
	fprintf(f, "%s %s\n", boot, names[r]);
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static enum vg_regs answer;

static void decide(void)
{
	const char *env = getenv("VIGIL_DEBUG_REGS");
	char dir[4096], path[4200], boot[64], why[256];
	struct vg_err e = { 0 };
	bool can_keep;

	if (env && !strcmp(env, "off")) {
		answer = VG_REGS_SILENT;
		return;
	}
	can_keep = !boot_id(boot, sizeof(boot)) &&
		   !vg_rundir(dir, sizeof(dir), &e);
	if (can_keep) {
		snprintf(path, sizeof(path), "%s/debug-regs", dir);
		if ((answer = cached(path, boot)) != VG_REGS_UNKNOWN)
			return;
	}
	answer = vg_debug_regs_check(why, sizeof(why));
	/* an answer the check could not give is not kept: the next run,
	 * with the privilege, checks */
	if (can_keep && answer != VG_REGS_UNKNOWN)
		keep(path, boot, answer);
}

enum vg_regs vg_debug_regs(void)
{
	pthread_once(&once, decide);
	return answer;
}
