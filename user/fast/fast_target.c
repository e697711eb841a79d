/* What the agent needs to know of the target's process before it goes
 * in (fast_internal.h): where its vDSO's clock is, and whether a seccomp
 * filter may refuse the agent's own system calls. */
#include "fast_internal.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* The target's vDSO clock_gettime: the vDSO is the kernel's, the same
 * image in every process, so its offset in vigil's own is the target's */
uint64_t vg_fast_vdso_clock_gettime(pid_t pid)
{
	const unsigned char *img = (void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh;
	uint64_t their = 0, aux[2];
	char path[64];
	int fd;

	if (!img)
		return 0;
	sh = (const void *)(img + eh->e_shoff);
	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (read(fd, aux, sizeof(aux)) == sizeof(aux) && aux[0])
		if (aux[0] == AT_SYSINFO_EHDR)
			their = aux[1];
	close(fd);
	for (int i = 0; their && i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		const char *names;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		sym = (const void *)(img + sh[i].sh_offset);
		names = (const char *)(img + sh[sh[i].sh_link].sh_offset);
		for (size_t j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
			if (!strcmp(names + sym[j].st_name,
				    "__vdso_clock_gettime"))
				return their + sym[j].st_value;
	}
	return 0;
}

/* Has a thread of pid a seccomp filter (or strict mode)? Then the agent
 * takes no patch back when vigil is gone: its system calls there
 * (vigil_fast.h's `seccomp`). Unreadable: as if so. */
bool vg_fast_any_seccomp(pid_t pid)
{
	char path[64], line[128];
	struct dirent *d;
	bool any = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(dir = opendir(path)))
		return true;
	while (!any && (d = readdir(dir))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/status", pid,
			 d->d_name);
		if (d->d_name[0] == '.' || !(f = fopen(path, "re")))
			continue;	/* (a thread gone since) */
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "Seccomp:", 8)) {
				any = atoi(line + 8) != 0;
				break;
			}
		fclose(f);
	}
	closedir(dir);
	return any;
}
