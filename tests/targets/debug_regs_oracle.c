/* The tests' oracle for debug registers, independent of vigil: a write
 * breakpoint on a variable of this program, N writes, the count. Exit 0
 * and "fire" when the count is N; exit 1 and "silent" when it is 0 (a
 * hypervisor that accepts the breakpoint and never raises it); exit 2 when
 * no breakpoint can be opened or the count is neither. tests/e2e/lib.sh's
 * has_debug_regs and tests/run.sh ask it. */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 1000

static volatile uint64_t word;

int main(void)
{
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
	for (int i = 0; i < N; i++)
		word++;
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count)) {
		printf("no count: read: %s\n", strerror(errno));
		return 2;
	}
	if (count == N) {
		printf("fire: a write breakpoint counted %d of %d writes\n", N, N);
		return 0;
	}
	printf("%s: a write breakpoint counted %llu of %d writes\n",
	       count ? "wrong count" : "silent", (unsigned long long)count, N);
	return count ? 2 : 1;
}
