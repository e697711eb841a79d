/* forksnap PID: one fork snapshot of the stopped PID with vigil's own code
 * (user/ckpt/snapshot_fork.c); prints the child's pid and the seconds the
 * snapshot took, for bench/checkpoint.py. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ckpt/ckpt.h"
#include "proc/proc.h"

int main(int argc, char **argv)
{
	struct vg_err e = { 0 };
	struct vg_fsnap *s = vg_fsnap_new(1);
	struct timespec a, b;
	pid_t pid = argc > 1 ? atoi(argv[1]) : 0, child;

	if (!s || pid <= 0 || vg_proc_stop(pid, &e)) {
		fprintf(stderr, "forksnap: %s\n", e.msg[0] ? e.msg : "usage: forksnap PID");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	child = vg_fsnap_take(s, pid, true, &e);
	clock_gettime(CLOCK_MONOTONIC, &b);
	kill(pid, SIGCONT);
	if (child < 0) {
		fprintf(stderr, "forksnap: %s\n", e.msg);
		return 1;
	}
	printf("%d %.6f\n", child, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;	/* the snapshot stays: the caller restores or kills it */
}
