/* A breakpoint's ioctls made on the CPU of the thread they are for.
 *
 * Moving, enabling or disabling a thread's perf breakpoint runs on the
 * CPU that thread last ran on: the kernel's event_function_call sends it
 * there as an IPI and waits for it, whether the thread runs or not, and
 * a move of an enabled breakpoint is two (a disable, then an enable). In
 * a guest each costs a trap to the hypervisor on both sides: 34 us a
 * move on average, most of a hold's arming (docs/PERFORMANCE.md), where
 * a call made on that CPU itself costs about 1 us. A held thread waits
 * on its CPU (inproc/ring.c, vg_hold_wait, which says which), so while
 * vg_watch_near is in force the calls are handed to a thread of vigil's
 * pinned to that CPU: one wake-up a hold instead of an IPI a call.
 *
 * The hand-over is one request at a time in shared memory, the caller
 * spinning for its answer as the kernel's IPI wait spins: the requester
 * is vigil's loop, which has nothing else to do until the breakpoint is
 * moved. An armer that is not running within ARMER_WAIT_NS (its CPU
 * busy with another task) gives the request back: the caller makes the
 * call itself. Only where the calls run changes, never what they do. */
#include "watch.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/clock.h"

#define ARMER_WAIT_NS 200000ull	/* 200 us for the armer to take it */
#define MAX_CPUS CPU_SETSIZE

enum { IDLE, POSTED, TAKEN, DONE };

struct armer {
	uint32_t awake;		/* futex word: 1 while requests may come */
	uint32_t state;		/* IDLE, POSTED, TAKEN, DONE */
	int fd;
	unsigned long req;
	void *arg;
	int ret, err;
	bool broken;		/* no thread, or not on its CPU */
};

static struct armer *armers[MAX_CPUS];
static struct armer *route;	/* the one vg_watch_near chose, or NULL */
static uint64_t served;		/* calls the armers made */

static void futex(uint32_t *w, int op, uint32_t val)
{
	syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static void *armer_main(void *arg)
{
	struct armer *a = arg;

	for (;;) {
		while (!__atomic_load_n(&a->awake, __ATOMIC_ACQUIRE))
			futex(&a->awake, FUTEX_WAIT_PRIVATE, 0);
		while (__atomic_load_n(&a->awake, __ATOMIC_ACQUIRE)) {
			uint32_t want = POSTED;

			if (!__atomic_compare_exchange_n(&a->state, &want,
							 TAKEN, false,
							 __ATOMIC_ACQUIRE,
							 __ATOMIC_RELAXED)) {
				__builtin_ia32_pause();
				continue;
			}
			a->ret = ioctl(a->fd, a->req, a->arg);
			a->err = errno;
			__atomic_fetch_add(&served, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&a->state, DONE, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

/* cpu's armer, made the first time (NULL: none can be) */
static struct armer *armer_of(int cpu)
{
	struct armer *a = armers[cpu];
	pthread_attr_t at;
	cpu_set_t set;
	pthread_t th;
	bool made;

	if (a)
		return a->broken ? NULL : a;
	if (!(a = calloc(1, sizeof(*a))))
		return NULL;
	armers[cpu] = a;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* pinned from its first instruction: a thread that cannot be on
	 * that CPU (vigil's own affinity, a cpuset) is not made */
	made = !pthread_attr_init(&at) &&
	       !pthread_attr_setaffinity_np(&at, sizeof(set), &set) &&
	       !pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) &&
	       !pthread_attr_setstacksize(&at, 64 * 1024) &&
	       !pthread_create(&th, &at, armer_main, a);
	pthread_attr_destroy(&at);
	if (!made) {
		a->broken = true;
		return NULL;
	}
	pthread_setname_np(th, "vigil-armer");
	return a;
}

void vg_watch_near(int cpu)
{
	struct armer *a;

	if (cpu < 0 || cpu >= MAX_CPUS || cpu == sched_getcpu()) {
		vg_watch_far();
		return;
	}
	if (route && armers[cpu] == route)
		return;
	vg_watch_far();
	if (!(a = armer_of(cpu)))
		return;
	__atomic_store_n(&a->awake, 1, __ATOMIC_RELEASE);
	futex(&a->awake, FUTEX_WAKE_PRIVATE, 1);
	route = a;
}

void vg_watch_far(void)
{
	if (!route)
		return;
	__atomic_store_n(&route->awake, 0, __ATOMIC_RELEASE);
	route = NULL;
}

int vg_watch_ioctl(int fd, unsigned long req, void *arg)
{
	struct armer *a = route;
	uint64_t end;
	uint32_t st;

	if (!a)
		return ioctl(fd, req, arg);
	a->fd = fd;
	a->req = req;
	a->arg = arg;
	__atomic_store_n(&a->state, POSTED, __ATOMIC_RELEASE);
	end = vg_now_ns(CLOCK_MONOTONIC) + ARMER_WAIT_NS;
	while ((st = __atomic_load_n(&a->state, __ATOMIC_ACQUIRE)) != DONE) {
		uint32_t want = POSTED;

		if (st == POSTED && vg_now_ns(CLOCK_MONOTONIC) > end &&
		    __atomic_compare_exchange_n(&a->state, &want, IDLE, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			vg_watch_far();	/* not running there: on our own */
			return ioctl(fd, req, arg);
		}
		__builtin_ia32_pause();
	}
	__atomic_store_n(&a->state, IDLE, __ATOMIC_RELAXED);
	errno = a->err;
	return a->ret;
}

uint64_t vg_watch_near_calls(void)
{
	return __atomic_load_n(&served, __ATOMIC_RELAXED);
}
