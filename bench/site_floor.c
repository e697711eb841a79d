/* bench/site_floor.c - the trap floor of a plan: empty programs at the
 * sites vigil would probe, so that a real program's run under them shows
 * what the traps alone cost, apart from vigil's programs and its user side.
 *
 *   site_floor [-e FILE+OFF]... [-s FILE+OFF]... [-r FILE+OFF]... -- PROGRAM [ARGS]
 *
 * -e an entry probe, -s a second one at an entry (as vigil's vg_stash beside
 * vg_entry at an `after` event's site), -r a return probe; OFF is a file
 * offset (0x... as `vigil lint --binary` prints the placed sites). Each
 * kind and file is one multi-uprobe link (Linux 6.6) of a program that only
 * returns 0, filtered to PROGRAM's pid, made before PROGRAM's exec, as
 * vigil's are. Waits for PROGRAM, then closes the links, each on its own
 * thread as vigil does (user/probe/ulink.c), and prints
 *   site_floor: links=N close_ms=T
 * and exits with PROGRAM's status (3 on a set-up failure).
 * bench/fixed_cost.py --only real --floor runs it on git's sites. */
#include <bpf/bpf.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SITES 256
#define UPROBE_MULTI 48		/* BPF_TRACE_UPROBE_MULTI, Linux 6.6 uapi */

/* union bpf_attr for BPF_LINK_CREATE, its uprobe_multi member (6.6) */
struct link_umulti {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, umulti_flags, pid;
};

struct site {
	char kind;		/* e, s, r */
	char *file;
	uint64_t off;
};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* one link: every site of this kind on this file */
static int link_sites(int prog, const struct site *s, int n, char kind,
		      const char *file, pid_t pid)
{
	uint64_t off[MAX_SITES];
	struct link_umulti a;
	int k = 0;

	for (int i = 0; i < n; i++)
		if (s[i].kind == kind && !strcmp(s[i].file, file))
			off[k++] = s[i].off;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog;
	a.attach_type = UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)file;
	a.offsets = (uint64_t)(uintptr_t)off;
	a.cnt = (uint32_t)k;
	a.umulti_flags = kind == 'r';	/* BPF_F_UPROBE_MULTI_RETURN */
	a.pid = (uint32_t)pid;
	return (int)syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

static void *close_one(void *fd)
{
	close((int)(intptr_t)fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct bpf_insn ret0[2];
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = UPROBE_MULTI);
	struct site s[MAX_SITES];
	int n = 0, i, go[2], status, prog, links[3 * MAX_SITES], nl = 0;
	double t;
	pid_t pid;

	for (i = 1; i + 1 < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i += 2) {
		char *plus = strrchr(argv[i + 1], '+');

		if (n == MAX_SITES || strlen(argv[i]) != 2 || !strchr("esr", argv[i][1]) ||
		    !plus) {
			fprintf(stderr, "site_floor: bad site %s %s\n", argv[i], argv[i + 1]);
			return 2;
		}
		*plus = 0;
		s[n++] = (struct site){ argv[i][1], argv[i + 1], strtoull(plus + 1, NULL, 0) };
	}
	if (i >= argc || strcmp(argv[i], "--") || i + 1 >= argc) {
		fprintf(stderr, "usage: site_floor [-e|-s|-r FILE+OFF]... -- PROGRAM [ARGS]\n");
		return 2;
	}
	memset(ret0, 0, sizeof(ret0));
	ret0[0].code = BPF_ALU64 | BPF_MOV | BPF_K;	/* r0 = 0 */
	ret0[1].code = BPF_JMP | BPF_EXIT;
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "site_floor", "GPL", ret0, 2, &po);
	if (prog < 0 || pipe(go)) {
		fprintf(stderr, "site_floor: loading the program: %s\n", strerror(errno));
		return 3;
	}
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {		/* wait for the probes, then become PROGRAM */
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[i + 1], &argv[i + 1]);
		perror("site_floor: exec");
		_exit(127);
	}
	close(go[0]);
	/* one link per kind and file, in the order first named */
	for (int k = 0; k < n; k++) {
		bool first = true;

		for (int j = 0; j < k; j++)
			if (s[j].kind == s[k].kind && !strcmp(s[j].file, s[k].file))
				first = false;
		if (!first)
			continue;
		links[nl] = link_sites(prog, s, n, s[k].kind, s[k].file, pid);
		if (links[nl] < 0) {
			fprintf(stderr, "site_floor: attaching to %s: %s\n", s[k].file,
				strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 3;
		}
		nl++;
	}
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 3;
	t = now_ms();
	{
		pthread_t th[3 * MAX_SITES];
		bool made[3 * MAX_SITES];

		for (int k = 0; k < nl; k++) {
			made[k] = !pthread_create(&th[k], NULL, close_one,
						  (void *)(intptr_t)links[k]);
			if (!made[k])
				close(links[k]);
		}
		for (int k = 0; k < nl; k++)
			if (made[k])
				pthread_join(th[k], NULL);
	}
	printf("site_floor: links=%d close_ms=%.1f\n", nl, now_ms() - t);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
