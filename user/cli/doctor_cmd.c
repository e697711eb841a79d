/* `vigil doctor`: what this machine lets vigil do, one line a check that
 * was run now (user/probe/machine.h, user/probe/debugregs.h, CRIU's own
 * `criu check`, gdb's Python), as `criu check` and `bpftrace --info` do.
 * Exit 0 when a basic run works: the privileges, the kernel's BTF, a
 * ring buffer and a uprobe that fires; what else is missing only narrows
 * what vigil can do, and each line says what. The kernel's features
 * beyond Linux 6.1 (multi-uprobe links, register writes from uprobes,
 * the kfuncs...) are user/probe/features.h's, each line "kernel: ...". */
#include "doctor_cmd.h"

#include <stdio.h>
#include <string.h>

#include "ckpt/ckpt.h"
#include "cli/cli.h"
#include "cli/usage.h"
#include "probe/debugregs.h"
#include "probe/features.h"
#include "probe/machine.h"
#include "util/caps.h"
#include "util/err.h"

/* the first line of CMD's output that contains want (or its first line
 * when want is NULL) into out; whether one did */
static bool first_line(const char *cmd, const char *want, char *out,
		       size_t len)
{
	char line[512];
	FILE *p = popen(cmd, "r");

	bool found = false;

	out[0] = 0;
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p))
		if (!found && (!want || strstr(line, want))) {
			size_t n = strcspn(line, "\n");

			n = n < len - 1 ? n : len - 1;
			memcpy(out, line, n);
			out[n] = 0;
			found = true;
		}
	pclose(p);
	return found;
}

static void criu(struct vg_check *c)
{
	const char *bin = vg_criu_path();
	char cmd[4200], version[96], check[96], why[96];

	snprintf(cmd, sizeof(cmd), "'%s' --version 2>&1", bin);
	if (!first_line(cmd, "Version", version, sizeof(version))) {
		snprintf(c->what, sizeof(c->what), "%s cannot be run: checkpoints and restores do not work (scripts/setup.sh builds CRIU 4.2)", bin);
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' check 2>&1", bin);
	c->ok = first_line(cmd, "Looks good", check, sizeof(check));
	if (!c->ok) {
		first_line(cmd, "rror", why, sizeof(why));
		snprintf(c->what, sizeof(c->what), "%s (%s): `criu check` fails: %s",
			 bin, version, why[0] ? why : "no \"Looks good\"");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' dump --help 2>&1", bin);
	c->ok = first_line(cmd, "--allow-uprobes", check, sizeof(check));
	snprintf(c->what, sizeof(c->what), "%s (%s): `criu check` looks good%s",
		 bin, version,
		 c->ok ? ", and it dumps a process a uprobe has hit (--allow-uprobes)"
		       : "; it lacks --allow-uprobes (CRIU 4.2), so it cannot dump a monitored process");
}

static void gdb(struct vg_check *c)
{
	char out[96];

	c->ok = first_line("gdb -nx -batch -ex 'python import sys; print(\"python\", sys.version.split()[0])' 2>&1",
			   "python ", out, sizeof(out));
	if (c->ok) {
		char v[96];

		first_line("gdb --version 2>&1", NULL, v, sizeof(v));
		snprintf(c->what, sizeof(c->what), "%s, %s", v, out);
	} else {
		snprintf(c->what, sizeof(c->what), "%s",
			 out[0] ? out : "gdb cannot be run: no live session, no hand-off command file");
	}
}

static void privileges(struct vg_check *c)
{
	struct vg_err e = { 0 };

	c->ok = !vg_check_privileges(&e);
	snprintf(c->what, sizeof(c->what), "%.1000s",
		 c->ok ? "CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN" : e.msg);
}

static void debug_regs(struct vg_check *c)
{
	char why[256];
	enum vg_regs r = vg_debug_regs_check(why, sizeof(why));

	c->ok = r == VG_REGS_FIRE;
	snprintf(c->what, sizeof(c->what), "%s",
		 r == VG_REGS_FIRE ? "fire"
		 : r == VG_REGS_SILENT ? "do not fire"
		 : r == VG_REGS_STALE ? "fire, and report an old hit again at a later debug exception"
				      : "unknown");
	snprintf(c->what + strlen(c->what), sizeof(c->what) - strlen(c->what),
		 " (%s)%s", why,
		 r == VG_REGS_SILENT ? ": `write`, `read`, `access` and `change` events cannot be seen; what they guard ends inconclusive"
		 : r == VG_REGS_STALE ? ": a `write`, `read`, `access` or `change` event may be one that did not happen; the slices they move end inconclusive"
				      : "");
}

int vg_cmd_doctor(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*check)(struct vg_check *c);
		bool basic;	/* a run needs it */
		bool priv;	/* a BPF check: meaningless without privileges */
		const char *without;	/* what is lost without it */
	} checks[] = {
		{ "privileges", privileges, true, false, NULL },
		{ "BTF", vg_machine_btf, true, false, NULL },
		{ "ring buffer", vg_machine_ringbuf, true, true, NULL },
		{ "uprobes", vg_machine_uprobe, true, true, NULL },
		{ "bpf_send_signal_thread", vg_machine_send_signal_thread, false,
		  true, "the kernel tier cannot stop a thread at the call" },
		{ "BPF timers", vg_machine_timers, false, true,
		  "timed properties run in the user tier" },
		{ "debug registers", debug_regs, false, false, NULL },
		{ "CRIU", criu, false, true, NULL },
		{ "gdb", gdb, false, false, NULL },
	};
	int nbad = 0;
	bool priv = true;

	if (argc > 1)
		return vg_cli_usage(vg_usage_doctor, "unexpected argument '%s'",
				    argv[1]);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct vg_check c = { 0 };

		if (checks[i].priv && !priv) {
			printf("%s: not checked (it needs the privileges above)\n",
			       checks[i].name);
			nbad += checks[i].basic;
			continue;
		}
		checks[i].check(&c);
		if (checks[i].check == privileges)
			priv = c.ok;
		/* the debug registers' line is its answer */
		if (checks[i].check == debug_regs)
			printf("%s: %s\n", checks[i].name, c.what);
		else
			printf("%s: %s (%s)%s%s\n", checks[i].name,
			       c.ok ? "works" : "does not work", c.what,
			       !c.ok && checks[i].without ? ": " : "",
			       !c.ok && checks[i].without ? checks[i].without : "");
		nbad += checks[i].basic && !c.ok;
	}
	/* what the kernel offers beyond Linux 6.1, each with its fallback
	 * (user/probe/features.h), but those said above */
	for (const struct vg_kfeature *k = vg_kfeatures; priv && k->name; k++) {
		const char *why = NULL;
		bool ok;

		if (!strcmp(k->name, "debug_regs"))	/* said above */
			continue;
		ok = k->works(&why);
		printf("kernel: %s: %s (%s)\n", k->name,
		       ok ? "works" : "does not work", why ? why : "");
	}
	printf("vigil doctor: %s\n",
	       nbad ? "a basic run does NOT work here: see the lines above"
		    : "a basic run works here");
	return nbad ? VG_EXIT_RUNTIME : 0;
}
