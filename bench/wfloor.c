/* bench/wfloor.c - a bare hardware breakpoint on a global of PROGRAM, with
 * or without an empty BPF program (bench/wfloor.bpf.c): the two floors of
 * the watchpoint benchmark.
 *
 *   wfloor [--bpf] SYMBOL -- PROGRAM [ARGS]
 *
 * Starts PROGRAM held before its exec, opens on that pid the breakpoint
 * vigil opens for `write SYMBOL` (user/probe/watch.c: HW_BREAKPOINT_W,
 * sample_period 1, inherit, user space only), with --bpf attaches the
 * empty program to it, lets PROGRAM exec and run, waits for it, then prints
 *   wfloor: count=N        the perf event's own count of hits
 *   wfloor: hits=N         (--bpf) how many times the program ran
 * and exits with PROGRAM's status (3 on a set-up failure).
 *
 * The breakpoint is armed before the exec, on the address SYMBOL has in the
 * file, so PROGRAM must be a non-PIE executable (refused otherwise): a perf
 * event on a task survives its exec, and a non-PIE program's globals are
 * where its symbol table says. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include "wfloor.skel.h"

/* SYMBOL's address and size in the non-PIE executable path; 0 if found */
static int find_global(const char *path, const char *name, uint64_t *addr,
		       uint64_t *size)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	if (fd < 0) {
		fprintf(stderr, "wfloor: %s: %s\n", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		fprintf(stderr, "wfloor: %s: not an ELF file\n", path);
		goto out;
	}
	if (eh.e_type != ET_EXEC) {
		fprintf(stderr, "wfloor: %s is not a non-PIE executable (build it -no-pie)\n", path);
		goto out;
	}
	while (ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_OBJECT)
				continue;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name)) {
				*addr = s.st_value;
				*size = s.st_size;
				ret = 0;
				break;
			}
		}
	}
	if (ret)
		fprintf(stderr, "wfloor: no global '%s' in %s\n", name, path);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	struct wfloor_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	uint64_t addr, size, count = 0;
	int go[2], status, use_bpf = 0, bp = -1, ret = 0;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "--bpf")) {
		use_bpf = 1;
		argv++;
		argc--;
	}
	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: wfloor [--bpf] SYMBOL -- PROGRAM [ARGS]\n");
		return 2;
	}
	if (find_global(argv[3], argv[1], &addr, &size))
		return 3;
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		fprintf(stderr, "wfloor: '%s' is %llu bytes: a debug register covers 1, 2, 4 or 8\n",
			argv[1], (unsigned long long)size);
		return 3;
	}
	if (use_bpf) {
		libbpf_set_print(quiet_libbpf);
		skel = wfloor_bpf__open_and_load();
		if (!skel) {
			fprintf(stderr, "wfloor: cannot load the BPF program: %s\n", strerror(errno));
			return 3;
		}
	}
	if (pipe(go)) {
		perror("wfloor: pipe");
		return 3;
	}
	pid = fork();
	if (pid < 0) {
		perror("wfloor: fork");
		return 3;
	}
	if (pid == 0) {		/* wait for the breakpoint, then become PROGRAM */
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the parent gave up */
		close(go[0]);
		execv(argv[3], &argv[3]);
		perror("wfloor: exec");
		_exit(127);
	}
	close(go[0]);

	{
		struct perf_event_attr a = {
			.type = PERF_TYPE_BREAKPOINT,
			.size = sizeof(a),
			.bp_type = HW_BREAKPOINT_W,
			.bp_addr = addr,
			.bp_len = size,
			.sample_period = 1,
			.inherit = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
		};

		bp = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (bp < 0) {
		fprintf(stderr, "wfloor: breakpoint on 0x%llx in %d: %s\n",
			(unsigned long long)addr, (int)pid, strerror(errno));
		ret = 3;
	} else if (use_bpf) {
		link = bpf_program__attach_perf_event(skel->progs.wfloor_bp, bp);
		if (!link) {
			fprintf(stderr, "wfloor: attaching the BPF program: %s\n", strerror(errno));
			ret = 3;
		}
	}
	if (ret) {
		close(go[1]);	/* the child exits with 127 */
		waitpid(pid, NULL, 0);
		goto out;
	}
	if (write(go[1], "g", 1) != 1) {
		perror("wfloor: write");
		kill(pid, SIGKILL);
	}
	close(go[1]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("wfloor: waitpid");
			kill(pid, SIGKILL);
			ret = 3;
			goto out;
		}
	}
	/* the event of an exited task keeps its count */
	if (read(bp, &count, sizeof(count)) != sizeof(count)) {
		fprintf(stderr, "wfloor: reading the breakpoint's count: %s\n", strerror(errno));
		ret = 3;
		goto out;
	}
	printf("wfloor: count=%llu\n", (unsigned long long)count);
	if (skel)
		printf("wfloor: hits=%llu\n", (unsigned long long)skel->bss->hits);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "wfloor: target killed by signal %d\n", WTERMSIG(status));
		ret = 3;
	} else {
		ret = WEXITSTATUS(status);
	}
out:
	bpf_link__destroy(link);
	if (bp >= 0)
		close(bp);
	wfloor_bpf__destroy(skel);
	return ret;
}
