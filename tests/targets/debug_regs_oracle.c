/* The tests' oracle for debug registers, independent of vigil: a write
 * breakpoint on a variable of this program, N writes, the count. Exit 0
 * and "fire" when the count is N; exit 1 and "silent" when it is 0 (a
 * hypervisor that accepts the breakpoint and never raises it); exit 2 when
 * no breakpoint can be opened or the count is neither. tests/e2e/lib.sh's
 * has_debug_regs and tests/run.sh ask it.
 *
 * debug_regs_oracle stale: after the N writes, one single step (the trap
 * flag, set by the program itself) and the count again, up to TRIES
 * times. Exit 0 and "stale" when a step's debug exception counted one
 * more hit (QEMU's TCG sets DR6's bit of a watchpoint that hit earlier
 * again at the next debug exception, unless something in between made
 * it forget the hit); exit 1 and "sound" when none did; 2 as above. */
#define _GNU_SOURCE	/* REG_EFL */
#include <errno.h>
#include <signal.h>
#include <ucontext.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 1000
#define TRIES 8

/* a page of its own: between the last write and the step nothing else
 * touches it (an access to a watched page that does not match clears
 * QEMU's note of the hit) */
static volatile uint64_t word __attribute__((aligned(4096)));
static char rest_of_page[4096 - 8] __attribute__((used));

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_EFL] &= ~0x100L;
}

int main(int argc, char **argv)
{
	int stale = argc > 1 && !strcmp(argv[1], "stale");
	struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };
	uint64_t before = 0;
	struct perf_event_attr a = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(a),
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uint64_t)(uintptr_t)&word,
		.bp_len = HW_BREAKPOINT_LEN_8,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	uint64_t count = 0;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0) {
		printf("no breakpoint: perf_event_open: %s\n", strerror(errno));
		return 2;
	}
	sigaction(SIGTRAP, &sa, NULL);
	/* stale: a hit reported again is seen only when nothing between the
	 * last write and the step made QEMU forget it; asked up to TRIES
	 * times, N writes each, one stale step enough (a step cannot count
	 * a hit no write made) */
	for (int k = 0; k < (stale ? TRIES : 1); k++) {
		uint64_t base = count;

		for (int i = 0; i < N; i++)
			word++;
		if (stale) {	/* the trap comes after the instruction after popf */
			if (read(fd, &before, sizeof(before)) != (ssize_t)sizeof(before)) {
				printf("no count: read: %s\n", strerror(errno));
				return 2;
			}
			__asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq\n\tnop"
					 ::: "memory", "cc");
		}
		if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count)) {
			printf("no count: read: %s\n", strerror(errno));
			return 2;
		}
		if (!stale)
			break;
		if (before - base != N)
			break;	/* not firing as it should: said below */
		if (count > before) {
			printf("stale: a single step after %d writes counted a write breakpoint hit more (%llu), try %d\n",
			       N, (unsigned long long)(count - base), k + 1);
			return 0;
		}
	}
	if (stale && before == count && count % N == 0 && count) {
		printf("sound: a single step after %d writes counted no hit (%d tries)\n",
		       N, TRIES);
		return 1;
	}
	if (count == N) {
		printf("fire: a write breakpoint counted %d of %d writes\n", N, N);
		return 0;
	}
	printf("%s: a write breakpoint counted %llu of %d writes\n",
	       count ? "wrong count" : "silent", (unsigned long long)count, N);
	return count ? 2 : 1;
}
