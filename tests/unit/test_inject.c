/* Unit tests of code and memory put into a live target with ptrace
 * (user/fast/inject.h), on build/targets/inject_target: two threads call
 * victim() (42) in a loop, one sleeps, the main thread waits in pause().
 * A system call run in it, mappings near its libc, a region shared with
 * it, victim() patched to a page returning 43 (the target prints "43"),
 * a patch refused, glibc's tid offset, a program run to its entry. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fast/inject.h"
#include "proc/proc.h"

/* glibc's own descriptor, in the libc this test runs on */
extern const uint32_t _thread_db_pthread_tid[3];

struct target {
	pid_t pid;
	int out;		/* its stdout */
	uint64_t victim;
	pid_t loop[2], sleeper;
};

/* the target a test runs, killed by teardown when the test fails */
static pid_t live;

static const char *target_path(void)
{
	static char path[4096];
	const char *b = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/targets/inject_target",
		 b ? b : "build");
	return path;
}

/* A line of the target's output within ms, or "" */
static void read_line(int fd, char *buf, size_t size, int ms)
{
	size_t n = 0;

	buf[0] = 0;
	while (n + 1 < size) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, ms) <= 0 || read(fd, buf + n, 1) != 1)
			break;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = 0;
}

static void start(struct target *t)
{
	int p[2];
	char line[256];
	void *v;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (!t->pid) {
		dup2(p[1], 1);
		execl(target_path(), target_path(), (char *)NULL);
		_exit(127);
	}
	live = t->pid;
	close(p[1]);
	t->out = p[0];
	read_line(t->out, line, sizeof(line), 10000);
	if (sscanf(line, "%p %d %d %d", &v, &t->loop[0], &t->loop[1],
		   &t->sleeper) != 4)
		fail_msg("%s did not start: '%s'", target_path(), line);
	t->victim = (uint64_t)(uintptr_t)v;
}

static void stop(struct target *t)
{
	live = 0;
	vg_proc_kill_child(t->pid);
	close(t->out);
}

/* It still runs, its main thread too: SIGUSR1's handler prints "alive" */
static void assert_alive(struct target *t)
{
	char line[64];

	assert_int_equal(kill(t->pid, SIGUSR1), 0);
	read_line(t->out, line, sizeof(line), 5000);
	assert_string_equal(line, "alive");
}

static struct user_regs_struct regs_of(pid_t tid)
{
	struct user_regs_struct r;

	assert_int_equal(ptrace(PTRACE_GETREGS, tid, 0, &r), 0);
	return r;
}

static struct vg_inject *seize(struct target *t)
{
	struct vg_inject *in = NULL;
	struct vg_err e = { 0 };

	if (vg_inject_seize(t->pid, &in, &e))
		fail_msg("seize: %s", e.msg);
	return in;
}

static void test_syscall(void **state)
{
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	struct user_regs_struct before, after;
	long ret = 0;

	start(&t);
	in = seize(&t);
	before = regs_of(t.pid);
	assert_int_equal(vg_inject_syscall(in, &ret, SYS_getpid, 0, 0, 0, 0,
					   0, 0, &e), 0);
	assert_int_equal(ret, t.pid);
	assert_int_equal(vg_inject_syscall(in, &ret, SYS_gettid, 0, 0, 0, 0,
					   0, 0, &e), 0);
	assert_int_equal(ret, t.pid);	/* the leader runs them */
	/* a failing call is its result, not the injection's failure */
	assert_int_equal(vg_inject_syscall(in, &ret, SYS_close, 999, 0, 0, 0,
					   0, 0, &e), 0);
	assert_int_equal(ret, -EBADF);
	after = regs_of(t.pid);
	assert_memory_equal(&before, &after, sizeof(before));
	vg_inject_release(in);
	/* pause() it was in goes on: the signal still reaches it */
	assert_alive(&t);
	stop(&t);
}

/* vigil killed at each point of an injected system call (its thread
 * running from the pad, at the call's entry, at its exit, back in an
 * event stop): the thread is let go by the kernel and finds its own
 * registers, and the pause() it was in, again; no SIGTRAP, no crash */
static char state_of(pid_t pid, pid_t tid);
static void test_tracer_dies(void **state)
{
	struct target t;

	start(&t);
	for (int n = 1; n <= 5; n++) {
		pid_t tracer = fork();
		char at[16];
		int st;

		assert_true(tracer >= 0);
		if (!tracer) {
			struct vg_inject *in;
			struct vg_err e = { 0 };
			long ret;

			snprintf(at, sizeof(at), "%d", n);
			setenv("VG_DBG_DIE_AT", at, 1);
			if (vg_inject_seize(t.pid, &in, &e) ||
			    vg_inject_syscall(in, &ret, SYS_getpid, 0, 0, 0, 0,
					      0, 0, &e))
				_exit(2);
			_exit(0);
		}
		assert_int_equal(waitpid(tracer, &st, 0), tracer);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
			fail_msg("point %d: the tracer was not killed there (status 0x%x)",
				 n, st);
		usleep(20000);
		assert_int_equal(kill(t.pid, 0), 0);
		if (state_of(t.pid, t.pid) == 'Z')
			fail_msg("point %d: the program died when its tracer did",
				 n);
		assert_alive(&t);
	}
	stop(&t);
}

static char state_of(pid_t pid, pid_t tid)
{
	char path[96], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (!(f = fopen(path, "r")))
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return 0;
	return p[2];
}

static void test_group_stop_kept(void **state)
{
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	pid_t tids[4] = { 0 };
	long ret;
	int n;

	start(&t);
	assert_int_equal(kill(t.pid, SIGSTOP), 0);
	for (int i = 0; i < 1000 && !vg_proc_is_stopped(t.pid); i++)
		usleep(1000);
	assert_true(vg_proc_is_stopped(t.pid));
	in = seize(&t);
	assert_int_equal(vg_inject_syscall(in, &ret, SYS_getpid, 0, 0, 0, 0,
					   0, 0, &e), 0);
	assert_int_equal(ret, t.pid);
	vg_inject_release(in);
	usleep(200000);
	n = vg_proc_threads(t.pid, tids, 4);
	assert_int_equal(n, 4);
	for (int i = 0; i < n; i++)
		if (state_of(t.pid, tids[i]) != 'T')
			fail_msg("thread %d is in state %c, not stopped",
				 tids[i], state_of(t.pid, tids[i]));
	assert_int_equal(kill(t.pid, SIGCONT), 0);
	assert_alive(&t);
	stop(&t);
}

/* [lo, hi) and perms of the mapping of pid holding addr */
static bool mapping_at(pid_t pid, uint64_t addr, char *perms, char *path,
		       size_t size)
{
	char f[64], line[1024];
	bool found = false;
	FILE *fp;

	snprintf(f, sizeof(f), "/proc/%d/maps", pid);
	assert_non_null(fp = fopen(f, "r"));
	while (!found && fgets(line, sizeof(line), fp)) {
		uint64_t lo, hi;
		int at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %*s %*s %*s %n",
			   &lo, &hi, perms, &at) < 3 || addr < lo || addr >= hi)
			continue;
		found = true;
		snprintf(path, size, "%s", at ? line + at : "");
		path[strcspn(path, "\n")] = 0;
	}
	fclose(fp);
	return found;
}

static uint64_t libc_base(pid_t pid)
{
	char f[64], line[1024];
	uint64_t lo = 0;
	FILE *fp;

	snprintf(f, sizeof(f), "/proc/%d/maps", pid);
	assert_non_null(fp = fopen(f, "r"));
	while (!lo && fgets(line, sizeof(line), fp))
		if (strstr(line, "/libc.so.6"))
			sscanf(line, "%" SCNx64, &lo);
	fclose(fp);
	assert_true(lo != 0);
	return lo;
}

static void test_mmap_near(void **state)
{
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	uint64_t libc, addr = 0, any = 0;
	char perms[8], path[512];

	start(&t);
	in = seize(&t);
	libc = libc_base(t.pid);
	if (vg_inject_mmap_near(in, libc, 3 * 4096, PROT_READ | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, &addr, &e))
		fail_msg("mmap_near: %s", e.msg);
	assert_true(addr % 4096 == 0);
	assert_true((addr > libc ? addr + 3 * 4096 - libc : libc - addr) <
		    VG_INJECT_NEAR_SPAN);
	assert_true(mapping_at(t.pid, addr, perms, path, sizeof(path)));
	assert_string_equal(perms, "r-xp");
	assert_true(mapping_at(t.pid, addr + 2 * 4096, perms, path,
			       sizeof(path)));
	/* near the executable too (victim), and anywhere */
	assert_int_equal(vg_inject_mmap_near(in, t.victim, 4096,
					     PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1,
					     &addr, &e), 0);
	assert_true((addr > t.victim ? addr - t.victim : t.victim - addr) <
		    VG_INJECT_NEAR_SPAN);
	assert_true(mapping_at(t.pid, addr, perms, path, sizeof(path)));
	assert_string_equal(perms, "rw-p");
	assert_int_equal(vg_inject_mmap_near(in, 0, 4096, PROT_READ,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1,
					     &any, &e), 0);
	assert_true(mapping_at(t.pid, any, perms, path, sizeof(path)));
	assert_string_equal(perms, "r--p");
	vg_inject_release(in);
	assert_alive(&t);
	stop(&t);
}

/* Is a descriptor of pid open on the memfd? */
static bool has_memfd(pid_t pid)
{
	char dir[64], link[128], target[256];
	bool found = false;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	for (int fd = 0; fd < 64; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "%s/%d", dir, fd);
		if ((n = readlink(link, target, sizeof(target) - 1)) <= 0)
			continue;
		target[n] = 0;
		found |= strstr(target, "vigil-fast") != NULL;
	}
	return found;
}

static void test_shared(void **state)
{
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	uint64_t remote = 0, v = 0, w = 0x5678;
	volatile uint64_t *local = NULL;
	char perms[8], path[512];

	start(&t);
	in = seize(&t);
	if (vg_inject_shared(in, 3 * 4096, &remote, (void **)&local, &e))
		fail_msg("shared: %s", e.msg);
	local[0] = 0x1234;
	local[1000] = 0xabcd;
	assert_int_equal(vg_inject_read(in, remote, &v, 8, &e), 0);
	assert_int_equal(v, 0x1234);
	assert_int_equal(vg_inject_read(in, remote + 8000, &v, 8, &e), 0);
	assert_int_equal(v, 0xabcd);
	assert_int_equal(vg_inject_write(in, remote + 8, &w, 8, &e), 0);
	assert_int_equal(local[1], 0x5678);
	assert_true(mapping_at(t.pid, remote, perms, path, sizeof(path)));
	assert_string_equal(perms, "rw-s");
	assert_non_null(strstr(path, "memfd:vigil-fast"));
	assert_false(has_memfd(t.pid));	/* its descriptor is closed */
	vg_inject_release(in);
	assert_alive(&t);
	munmap((void *)local, 3 * 4096);
	stop(&t);
}

static void test_patch(void **state)
{
	static const uint8_t stub[] = { 0xb8, 0x2b, 0, 0, 0, 0xc3 };
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	uint64_t page = 0;
	uint8_t jmp[5], back[5];
	const uint8_t *bytes[1] = { jmp };
	uint32_t len[1] = { 5 };
	int32_t rel;
	char line[64];

	start(&t);
	in = seize(&t);
	assert_int_equal(vg_inject_mmap_near(in, t.victim, 4096,
					     PROT_READ | PROT_EXEC,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1,
					     &page, &e), 0);
	/* read-only, executable: written through /proc/pid/mem */
	assert_int_equal(vg_inject_write(in, page, stub, sizeof(stub), &e), 0);
	rel = (int32_t)(int64_t)(page - (t.victim + 5));
	jmp[0] = 0xe9;
	memcpy(jmp + 1, &rel, 4);
	if (vg_inject_patch(in, &t.victim, bytes, len, 1, 0, 0, &e))
		fail_msg("patch: %s", e.msg);
	assert_int_equal(vg_inject_read(in, t.victim, back, 5, &e), 0);
	assert_memory_equal(back, jmp, 5);
	for (int i = 0; i < 2; i++) {
		uint64_t pc = regs_of(t.loop[i]).rip;

		if (pc > t.victim && pc < t.victim + 5)
			fail_msg("thread %d left at 0x%" PRIx64 " inside the patch",
				 t.loop[i], pc);
	}
	vg_inject_release(in);
	read_line(t.out, line, sizeof(line), 5000);
	assert_string_equal(line, "43");
	assert_alive(&t);
	stop(&t);
}

/* A looping thread sits strictly inside the range patched (its own
 * pc - 1, 2 bytes, rewritten with what is there): it is stepped out
 * first, and goes on afterwards. */
static void test_patch_steps_out(void **state)
{
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	uint64_t pc, at;
	uint8_t same[2];
	const uint8_t *bytes[1] = { same };
	uint32_t len[1] = { 2 };
	char line[64];

	start(&t);
	in = seize(&t);
	pc = regs_of(t.loop[0]).rip;
	at = pc - 1;
	assert_int_equal(vg_inject_read(in, at, same, 2, &e), 0);
	if (vg_inject_patch(in, &at, bytes, len, 1, 0, 0, &e))
		fail_msg("patch: %s", e.msg);
	if (regs_of(t.loop[0]).rip == pc)
		fail_msg("thread %d still at 0x%" PRIx64 ", inside the patch",
			 t.loop[0], pc);
	if (regs_of(t.loop[1]).rip == pc)
		fail_msg("thread %d still at 0x%" PRIx64 ", inside the patch",
			 t.loop[1], pc);
	vg_inject_release(in);
	assert_alive(&t);
	/* and victim() still gives 42: nothing printed */
	read_line(t.out, line, sizeof(line), 200);
	assert_string_equal(line, "");
	stop(&t);
}

/* A range about to be unmapped that a looping thread's pc is at the start
 * of ([pc, pc + 1)): vg_inject_step_clear steps it out, and both threads
 * run on; vg_inject_thread names every seized thread with its pc. */
static void test_step_clear(void **state)
{
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	uint64_t pc, lo, hi, tpc;
	pid_t tid;
	int n = 0, found = 0;

	start(&t);
	in = seize(&t);
	pc = regs_of(t.loop[0]).rip;
	for (; vg_inject_thread(in, n, &tid, &tpc) == 0; n++)
		if (tid == t.loop[0]) {
			found = 1;
			assert_true(tpc == pc);
		}
	assert_true(found);
	assert_true(n >= 3);	/* the main thread, two loops, a sleeper */
	lo = pc;
	hi = pc + 1;
	if (vg_inject_step_clear(in, &lo, &hi, 1, &e))
		fail_msg("step_clear: %s", e.msg);
	if (regs_of(t.loop[0]).rip == pc)
		fail_msg("thread %d still at 0x%" PRIx64 ", in the range",
			 t.loop[0], pc);
	if (regs_of(t.loop[1]).rip == pc)
		fail_msg("thread %d still at 0x%" PRIx64 ", in the range",
			 t.loop[1], pc);
	vg_inject_release(in);
	assert_alive(&t);
	stop(&t);
}

/* The executable's text mapping holding addr: [lo, hi) */
static void text_of(pid_t pid, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	char f[64], line[1024];
	FILE *fp;

	snprintf(f, sizeof(f), "/proc/%d/maps", pid);
	assert_non_null(fp = fopen(f, "r"));
	*lo = *hi = 0;
	while (fgets(line, sizeof(line), fp)) {
		uint64_t a, b;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &a, &b) == 2 &&
		    addr >= a && addr < b) {
			*lo = a;
			*hi = b;
		}
	}
	fclose(fp);
	assert_true(*hi > *lo);
}

/* The looping threads never leave the executable's text: with it as the
 * busy range, the patch is refused naming one of them and its pc, and
 * nothing is written. */
static void test_patch_refused(void **state)
{
	static const uint8_t ud2[5] = { 0x0f, 0x0b, 0x0f, 0x0b, 0x90 };
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	const uint8_t *bytes[1] = { ud2 };
	uint32_t len[1] = { 5 };
	uint64_t lo, hi;
	uint8_t before[5], back[5];
	char a[32], b[32];

	start(&t);
	in = seize(&t);
	text_of(t.pid, t.victim, &lo, &hi);
	assert_int_equal(vg_inject_read(in, t.victim, before, 5, &e), 0);
	assert_int_equal(vg_inject_patch(in, &t.victim, bytes, len, 1, lo, hi,
					 &e), -1);
	snprintf(a, sizeof(a), "thread %d ", t.loop[0]);
	snprintf(b, sizeof(b), "thread %d ", t.loop[1]);
	if (!strstr(e.msg, a) && !strstr(e.msg, b))
		fail_msg("the message names no looping thread: %s", e.msg);
	assert_non_null(strstr(e.msg, "at 0x"));
	assert_int_equal(vg_inject_read(in, t.victim, back, 5, &e), 0);
	assert_memory_equal(back, before, 5);
	/* a second range that is not mapped: none is written */
	{
		uint64_t two[2] = { t.victim, 0x10000 };
		const uint8_t *b2[2] = { ud2, ud2 };
		uint32_t l2[2] = { 5, 5 };

		assert_int_equal(vg_inject_patch(in, two, b2, l2, 2, 0, 0, &e),
				 -1);
		assert_non_null(strstr(e.msg, "0x10000"));
		assert_int_equal(vg_inject_read(in, t.victim, back, 5, &e), 0);
		assert_memory_equal(back, before, 5);
	}
	vg_inject_release(in);
	assert_alive(&t);
	stop(&t);
}

static void test_tid_offset(void **state)
{
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	pid_t tids[4];
	uint32_t off = 0;

	start(&t);
	in = seize(&t);
	if (vg_inject_tid_offset(in, &off, &e))
		fail_msg("tid offset: %s", e.msg);
	assert_int_equal(_thread_db_pthread_tid[0], 32);
	assert_int_equal(off, _thread_db_pthread_tid[2]);
	/* each thread's, read here apart from the function's own check */
	tids[0] = t.pid;
	tids[1] = t.loop[0];
	tids[2] = t.loop[1];
	tids[3] = t.sleeper;
	for (int i = 0; i < 4; i++) {
		uint32_t v = 0;

		assert_int_equal(vg_inject_read(in, regs_of(tids[i]).fs_base + off,
						&v, 4, &e), 0);
		assert_int_equal(v, tids[i]);
	}
	vg_inject_release(in);
	stop(&t);
}

static uint64_t auxv_entry(pid_t pid)
{
	char path[64];
	uint64_t av[2], entry = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	assert_non_null(f = fopen(path, "r"));
	while (fread(av, sizeof(av), 1, f) == 1 && av[0])
		if (av[0] == 9)	/* AT_ENTRY */
			entry = av[1];
	fclose(f);
	return entry;
}

static void test_run_to_entry(void **state)
{
	char *argv[] = { (char *)target_path(), "entry", NULL };
	struct vg_inject *in;
	struct vg_err e = { 0 };
	uint64_t entry, base;
	uint8_t byte = 0xcc;
	long ret;
	pid_t pid;
	int st;

	pid = vg_proc_spawn_stopped(target_path(), argv, false, &e);
	assert_true(pid > 0);
	live = pid;
	if (vg_inject_run_to_entry(pid, &in, &e)) {
		vg_proc_kill_child(pid);
		fail_msg("run to entry: %s", e.msg);
	}
	entry = auxv_entry(pid);
	assert_true(entry != 0);
	assert_int_equal(regs_of(pid).rip, entry);
	base = libc_base(pid);	/* fails when libc is not mapped */
	assert_true(base != 0);
	/* the int3 is gone */
	assert_int_equal(vg_inject_read(in, entry, &byte, 1, &e), 0);
	assert_int_not_equal(byte, 0xcc);
	assert_int_equal(vg_inject_syscall(in, &ret, SYS_getpid, 0, 0, 0, 0,
					   0, 0, &e), 0);
	assert_int_equal(ret, pid);
	vg_inject_release(in);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	live = 0;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Killed while held: the next call says so */
static void test_target_dies(void **state)
{
	struct target t;
	struct vg_inject *in;
	struct vg_err e = { 0 };
	long ret;

	start(&t);
	in = seize(&t);
	assert_int_equal(kill(t.pid, SIGKILL), 0);
	usleep(50000);
	assert_int_equal(vg_inject_syscall(in, &ret, SYS_getpid, 0, 0, 0, 0,
					   0, 0, &e), -1);
	if (!strstr(e.msg, "killed by signal 9"))
		fail_msg("unclear: %s", e.msg);
	vg_inject_release(in);
	live = 0;
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	close(t.out);
}

static int teardown(void **state)
{
	/* its threads may still be traced: each is reaped (__WALL) */
	if (live)
		kill(live, SIGKILL);
	while (live && waitpid(-1, NULL, __WALL) > 0)
		;
	live = 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_syscall, teardown),
		cmocka_unit_test_teardown(test_tracer_dies, teardown),
		cmocka_unit_test_teardown(test_group_stop_kept, teardown),
		cmocka_unit_test_teardown(test_mmap_near, teardown),
		cmocka_unit_test_teardown(test_shared, teardown),
		cmocka_unit_test_teardown(test_patch, teardown),
		cmocka_unit_test_teardown(test_patch_steps_out, teardown),
		cmocka_unit_test_teardown(test_patch_refused, teardown),
		cmocka_unit_test_teardown(test_step_clear, teardown),
		cmocka_unit_test_teardown(test_tid_offset, teardown),
		cmocka_unit_test_teardown(test_run_to_entry, teardown),
		cmocka_unit_test_teardown(test_target_dies, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
