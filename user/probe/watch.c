/* Hardware watchpoints, opened on a thread (user/probe/watch.h). */
#include "watch.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* one attr for the open and the move: the kernel moves a breakpoint
 * only when nothing but its place and type differ */
static struct perf_event_attr attr_of(uint64_t addr, int len, int kind)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(struct perf_event_attr),
		.bp_type = kind == 0 ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW,
		.bp_addr = addr,
		.bp_len = (uint64_t)len,
		.sample_period = 1,
		.inherit = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
}

int vg_watch_open(int tid, uint64_t addr, int len, int kind, struct vg_err *e)
{
	struct perf_event_attr a = attr_of(addr, len, kind);
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return vg_errf(e, "a watchpoint on 0x%llx in thread %d: %s%s",
			       (unsigned long long)addr, tid, strerror(errno),
			       errno == ENOSPC ? " (x86 has 4 debug registers per thread)"
			       : errno == EACCES || errno == EPERM ? " (vigil needs CAP_PERFMON)" : "");
	return fd;
}

int vg_watch_move(int fd, uint64_t addr, int len, int kind)
{
	struct perf_event_attr a = attr_of(addr, len, kind);

	return vg_watch_ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ? -1 : 0;
}

int vg_watch_disable(int fd)
{
	return vg_watch_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) ? -1 : 0;
}
