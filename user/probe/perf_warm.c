/* See perf_warm.h. */
#include "perf_warm.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static int warm_fd = -1;	/* kept open: closing it switches them off */

static void *warm(void *arg)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	(void)arg;
	__atomic_store_n(&warm_fd,
			 (int)syscall(SYS_perf_event_open, &a, getpid(), -1,
				      -1, PERF_FLAG_FD_CLOEXEC),
			 __ATOMIC_RELEASE);
	return NULL;
}

void vg_perf_warm(void)
{
	static int started;
	pthread_attr_t at;
	pthread_t th;

	if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL) ||
	    pthread_attr_init(&at))
		return;
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 << 10);
	pthread_create(&th, &at, warm, NULL);
	pthread_attr_destroy(&at);
}
