/* bench/floor.c - minimal libbpf loader for bench/floor.bpf.c.
 *
 *   floor [--ringbuf wakeup|nowakeup] FUNC[,FUNC2] -- PROGRAM [ARGS]
 *
 * Loads the empty uprobe programs, starts PROGRAM held before its exec,
 * attaches a probe to each FUNC in PROGRAM's binary for that pid only, lets
 * it exec and run, waits for it, then prints one line per function
 *   floor: FUNC hits=N
 * With --ringbuf, each hit also sends a 96-byte record to a ring buffer
 * (see floor.bpf.c) that this process reads: woken by the kernel
 * (wakeup), or polling every 10 ms (nowakeup); it then also prints
 *   floor: records=N
 * and exits with PROGRAM's status (3 on a set-up failure). The link is owned
 * by this process's file descriptor: the probe goes away when it exits,
 * whatever way it exits. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include "floor.skel.h"

static unsigned long long records;

static int on_record(void *ctx __attribute__((unused)),
		     void *data __attribute__((unused)), size_t size __attribute__((unused)))
{
	records++;
	return 0;
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	struct bpf_link *link[2] = { NULL, NULL };
	struct ring_buffer *rb = NULL;
	char path[PATH_MAX], *func[2] = { NULL, NULL };
	int go[2], status, nfunc = 0, ret = 0, use_rb = 0, wakeup = 0, reaped = 0;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "--ringbuf")) {
		use_rb = 1;
		if (!strcmp(argv[2], "wakeup"))
			wakeup = 1;
		else if (strcmp(argv[2], "nowakeup")) {
			fprintf(stderr, "floor: --ringbuf wakeup|nowakeup\n");
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: floor [--ringbuf wakeup|nowakeup] FUNC[,FUNC2] -- PROGRAM [ARGS]\n");
		return 2;
	}
	for (char *f = strtok(argv[1], ","); f; f = strtok(NULL, ",")) {
		if (nfunc == 2) {
			fprintf(stderr, "floor: at most two functions\n");
			return 2;
		}
		func[nfunc++] = f;
	}
	if (!nfunc) {
		fprintf(stderr, "floor: no function named\n");
		return 2;
	}
	if (!realpath(argv[3], path)) {
		fprintf(stderr, "floor: %s: %s\n", argv[3], strerror(errno));
		return 3;
	}
	libbpf_set_print(quiet_libbpf);
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: cannot open the BPF object: %s\n", strerror(errno));
		return 3;
	}
	skel->rodata->rb_flags = wakeup ? 0 : BPF_RB_NO_WAKEUP;
	if (floor_bpf__load(skel)) {
		fprintf(stderr, "floor: cannot load the BPF program: %s\n", strerror(errno));
		floor_bpf__destroy(skel);
		return 3;
	}
	if (use_rb) {
		rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), on_record, NULL, NULL);
		if (!rb) {
			fprintf(stderr, "floor: ring buffer: %s\n", strerror(errno));
			floor_bpf__destroy(skel);
			return 3;
		}
	}
	if (pipe(go)) {
		perror("floor: pipe");
		return 3;
	}
	pid = fork();
	if (pid < 0) {
		perror("floor: fork");
		return 3;
	}
	if (pid == 0) {		/* wait for the probes, then become PROGRAM */
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the parent gave up */
		close(go[0]);
		execv(path, &argv[3]);
		perror("floor: exec");
		_exit(127);
	}
	close(go[0]);

	for (int i = 0; i < nfunc; i++) {
		struct bpf_program *prog = use_rb ?
			(i ? skel->progs.floor_rb1 : skel->progs.floor_rb0) :
			(i ? skel->progs.floor_probe1 : skel->progs.floor_probe0);
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = func[i]);

		link[i] = bpf_program__attach_uprobe_opts(prog, pid, path, 0, &opts);
		if (!link[i]) {
			fprintf(stderr, "floor: cannot attach to %s:%s: %s\n", path, func[i],
				strerror(errno));
			close(go[1]);	/* the child exits with 127 */
			waitpid(pid, NULL, 0);
			ret = 3;
			goto out;
		}
	}
	if (write(go[1], "g", 1) != 1) {
		perror("floor: write");
		kill(pid, SIGKILL);
	}
	close(go[1]);
	/* With a ring buffer, read it until the program has exited. */
	for (int done = 0; rb && !done;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid) {
			done = reaped = 1;
		} else if (w < 0 && errno != EINTR) {
			perror("floor: waitpid");
			done = 1;
		} else if (ring_buffer__poll(rb, wakeup ? 100 : 10) < 0 && errno != EINTR) {
			perror("floor: ring_buffer__poll");
			done = 1;
		}
		if (!wakeup || done)
			ring_buffer__consume(rb);
	}
	while (!reaped && waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("floor: waitpid");
			kill(pid, SIGKILL);
			ret = 3;
			goto out;
		}
	}
	for (int i = 0; i < nfunc; i++)
		printf("floor: %s hits=%llu\n", func[i],
		       (unsigned long long)(i ? skel->bss->hits1 : skel->bss->hits0));
	if (rb)
		printf("floor: records=%llu\n", records);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "floor: target killed by signal %d\n", WTERMSIG(status));
		ret = 3;
	} else {
		ret = WEXITSTATUS(status);
	}
out:
	for (int i = 0; i < nfunc; i++)
		bpf_link__destroy(link[i]);
	ring_buffer__free(rb);
	floor_bpf__destroy(skel);
	return ret;
}
