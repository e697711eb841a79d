#include "caps.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

int vg_check_privileges(struct vg_err *e)
{
	static const struct { int bit; const char *name; } need[] = {
		{ CAP_BPF_BIT, "CAP_BPF (load BPF programs)" },
		{ CAP_PERFMON_BIT, "CAP_PERFMON (uprobes and perf events)" },
		{ CAP_SYS_ADMIN_BIT, "CAP_SYS_ADMIN (bpf_send_signal, CRIU)" },
	};
	uint64_t caps = effective_caps();
	char missing[512] = "";

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(caps & (1ull << need[i].bit))) {
			strncat(missing, missing[0] ? ", " : "",
				sizeof(missing) - strlen(missing) - 1);
			strncat(missing, need[i].name,
				sizeof(missing) - strlen(missing) - 1);
		}
	if (missing[0])
		return vg_errf(e, "missing capabilities: %s; run vigil as root or grant them (setcap cap_bpf,cap_perfmon,cap_sys_admin+ep build/vigil)",
			       missing);
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return vg_errf(e, "/sys/kernel/btf/vmlinux is missing: vigil needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	return 0;
}
