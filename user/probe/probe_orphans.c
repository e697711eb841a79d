/* Processes a BPF program stopped for vigil that vigil did not live to let
 * go: a process held at its exec by vigil watch (or at its mapping of a
 * watched library), a child held at its fork (probe_follow.c). Each is
 * marked VG_FOLLOW_HELD in the `followed` table before its stop takes
 * effect, and vigil lets it go when it reads its record. If vigil is
 * SIGKILLed (or crashes) in between, its probes go with its descriptors,
 * but a stopped process stays stopped: nothing else knows it is ours.
 *
 * The guard process (user/proc/guard.h) keeps copies of the `followed`
 * and `inflight` maps' descriptors (maps only: no program, no probe lives
 * on through them), and when vigil has exited it runs
 * vg_probe_orphans_resume, which lets go of every process still marked
 * held. A stop and its mark are made inside one program run, counted in
 * `inflight` (per CPU) from before the stop to after the mark: the guard
 * waits until each CPU has been seen at zero, then looks; a program that
 * started just before vigil's links went and had not counted itself yet is
 * caught by a second look a moment later. */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vigil.skel.h"

int vg_probe_orphan_fds(const struct vg_probe *p, int fds[2])
{
	if (!p->per_pid || !p->skel)
		return 0;	/* nothing is held at a fork or an exec */
	fds[0] = bpf_map__fd(p->skel->maps.followed);
	fds[1] = bpf_map__fd(p->skel->maps.inflight);
	return 2;
}

/* until every CPU's count has been seen at zero (at most ~200 ms) */
static void settle(int inflight, int ncpus)
{
	uint64_t *vals = calloc((size_t)ncpus, sizeof(*vals));
	bool *zero = calloc((size_t)ncpus, sizeof(*zero));
	uint32_t key = 0;
	int left = ncpus;
	struct timespec ts = { 0, 1000000 };

	for (int t = 0; vals && zero && left && t < 200; t++) {
		if (bpf_map_lookup_elem(inflight, &key, vals))
			break;
		for (int c = 0; c < ncpus; c++)
			if (!zero[c] && !vals[c]) {
				zero[c] = true;
				left--;
			}
		if (left)
			nanosleep(&ts, NULL);
	}
	free(vals);
	free(zero);
}

static int resume_held(int followed)
{
	uint32_t key, next, v;
	bool first = true;
	int n = 0;

	while (!bpf_map_get_next_key(followed, first ? NULL : &key, &next)) {
		int pidfd;

		first = false;
		key = next;
		if (bpf_map_lookup_elem(followed, &key, &v) ||
		    v != VG_FOLLOW_HELD)
			continue;
		/* through a pidfd, and the mark looked at again after it is
		 * open: a process that exited took its entry with it (vigil's
		 * exit tracepoint) while vigil lived; one that exits now
		 * leaves it, and its pid may be reused, but not in the
		 * moment between the open and the second look */
		pidfd = (int)syscall(SYS_pidfd_open, (pid_t)key, 0);
		if (pidfd < 0)
			continue;
		v = VG_FOLLOW_ON;
		if (!bpf_map_update_elem(followed, &key, &v, BPF_EXIST) &&
		    !syscall(SYS_pidfd_send_signal, pidfd, SIGCONT, NULL, 0)) {
			dprintf(2, "vigil: (guard) vigil ended while pid %u was held for its probes: resumed it, unmonitored\n",
				key);
			n++;
		}
		close(pidfd);
	}
	return n;
}

void vg_probe_orphans_resume(const int *fds, int nfds)
{
	int ncpus = libbpf_num_possible_cpus();
	struct timespec ts = { 0, 20000000 };

	if (nfds < 2 || ncpus <= 0)
		return;
	settle(fds[1], ncpus);
	resume_held(fds[0]);
	nanosleep(&ts, NULL);
	settle(fds[1], ncpus);
	resume_held(fds[0]);
}
