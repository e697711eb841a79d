#include "caps.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

static uint64_t effective_caps(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

/* the first integer in a /proc or /sys file; -1 when it cannot be read */
static int read_int(const char *path, long *v)
{
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%ld", v);
	fclose(f);
	return n == 1 ? 0 : -1;
}

/* The BPF programs see a thread's pid in the host's pid namespace, while
 * vigil names its target in its own: inside another pid namespace (a
 * container without the host's) they never match, and vigil would see
 * no event at all. The host's namespace has a fixed inode
 * (PROC_PID_INIT_INO). */
static int check_pid_namespace(struct vg_err *e)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == 0xEFFFFFFCu)
		return 0;
	return vg_errf_code(e, VG_EXIT_RUNTIME, "vigil runs in a pid namespace other than the host's (/proc/self/ns/pid is pid:[%lu]): its probes see the host's pids, so they would never match the pid vigil is given; run vigil in the host's pid namespace (docker run --pid=host, or nsenter -t 1 -p), from where it can still watch processes in containers (vigil watch, vigil attach -p HOSTPID)",
			    (unsigned long)st.st_ino);
}

int vg_check_privileges(struct vg_err *e)
{
	static const struct { int bit; const char *name; } need[] = {
		{ CAP_BPF_BIT, "CAP_BPF (load BPF programs)" },
		{ CAP_PERFMON_BIT, "CAP_PERFMON (uprobes and perf events)" },
		{ CAP_SYS_ADMIN_BIT, "CAP_SYS_ADMIN (bpf_send_signal, CRIU)" },
	};
	uint64_t caps = effective_caps();
	char missing[512] = "";
	long paranoid;

	if (read_int("/proc/sys/kernel/perf_event_paranoid", &paranoid))
		return vg_errf_code(e, VG_EXIT_RUNTIME, "/proc/sys/kernel/perf_event_paranoid is missing: vigil needs a kernel with perf events (CONFIG_PERF_EVENTS=y)");

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(caps & (1ull << need[i].bit))) {
			strncat(missing, missing[0] ? ", " : "",
				sizeof(missing) - strlen(missing) - 1);
			strncat(missing, need[i].name,
				sizeof(missing) - strlen(missing) - 1);
		}
	/* perf_event_paranoid limits only processes without CAP_PERFMON:
	 * with the capabilities it does not matter, so it is only said */
	if (missing[0])
		return vg_errf_code(e, VG_EXIT_RUNTIME, "missing capabilities: %s; run vigil as root or grant them (setcap cap_bpf,cap_perfmon,cap_sys_admin+ep build/vigil); kernel.perf_event_paranoid is %ld, which does not lift this: BPF programs need CAP_BPF whatever it is",
				    missing, paranoid);
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return vg_errf_code(e, VG_EXIT_RUNTIME, "/sys/kernel/btf/vmlinux is missing: vigil needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK))
		return vg_errf_code(e, VG_EXIT_RUNTIME, "this kernel has no uprobe events (/sys/bus/event_source/devices/uprobe): vigil needs CONFIG_UPROBE_EVENTS=y");
	return check_pid_namespace(e);
}
