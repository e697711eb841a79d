/* Waking vigil for an in-process hold (inproc/ring.c, vg_hold_wait).
 *
 * vigil reads the agent's ring on a clock (a wake-up gap while records
 * come, VG_POLL_MS when they do not), and a thread waiting in a hold
 * waits for that read: it must be told. The agent bumps hold_req and,
 * when this thread sleeps on it, wakes that futex; this thread then
 * sends vigil a SIGCHLD, which the session's loop takes as a wake-up
 * (session.c), as it took the stop a hold used to be. A thread, because
 * epoll cannot wait on a futex; a signal, because the target can reach no
 * fd of vigil's (an fd put into the target could be closed and its
 * number reused by the program, which a write to it would then harm). */
#include "fast_run.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAKER_NAP_NS 100000000	/* looks at quit this often at least */

struct vg_fast_waker {
	pthread_t th;
	struct vg_fast_shared *sh;	/* vigil's mapping: outlives us */
	int quit;
};

void vg_fast_wake_all(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void *waker(void *arg)
{
	struct vg_fast_waker *w = arg;
	struct vg_fast_shared *sh = w->sh;
	struct timespec nap = { 0, WAKER_NAP_NS };
	sigset_t all;

	/* the SIGCHLD is for the session's signalfd, never this thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!__atomic_load_n(&w->quit, __ATOMIC_ACQUIRE)) {
		uint32_t seen = __atomic_load_n(&sh->hold_req, __ATOMIC_SEQ_CST);

		/* said before looked at again: an agent that bumped
		 * hold_req after that look sees it, and wakes us */
		__atomic_store_n(&sh->waker_sleeps, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&sh->hold_req, __ATOMIC_SEQ_CST) == seen)
			syscall(SYS_futex, &sh->hold_req, FUTEX_WAIT, seen,
				&nap, NULL, 0);
		__atomic_store_n(&sh->waker_sleeps, 0, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&sh->hold_req, __ATOMIC_SEQ_CST) != seen)
			kill(getpid(), SIGCHLD);
	}
	return NULL;
}

void vg_fast_wake_stop(struct vg_fast_run *f)
{
	struct vg_fast_waker *w = f->waker;

	if (!w)
		return;
	__atomic_store_n(&w->quit, 1, __ATOMIC_RELEASE);
	vg_fast_wake_all(&w->sh->hold_req);
	pthread_join(w->th, NULL);
	free(w);
	f->waker = NULL;
}

void vg_fast_wake_start(struct vg_fast_run *f)
{
	struct vg_fast_waker *w;

	vg_fast_wake_stop(f);	/* the region it watched was another */
	if (!f->sh || !(w = calloc(1, sizeof(*w))))
		return;		/* holds wait for the clock's read */
	w->sh = f->sh;
	if (pthread_create(&w->th, NULL, waker, w)) {
		free(w);
		return;
	}
	f->waker = w;
}
