/* The verifier's statistics (log level BPF_LOG_STATS: "verification time
 * N usec", "processed N insns") per program, read from each program's log
 * buffer after the object is loaded. libbpf 1.1 has no other way to get
 * the time per program: it loads them all in bpf_object__load.
 *
 * A program the kernel refused is told by its descriptor, not by its log:
 * Linux 6.1 writes its statistics after a refusal too. Its log at this
 * level is the verifier's error without the trace; VIGIL_DEBUG=2 asks for
 * the whole trace as well (level 1, a slower load) and prints its end. */
#include "load_stats.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define VG_STATS_LOG 4096	/* the statistics are a few lines */
#define VG_TRACE_LOG (4u << 20)	/* VIGIL_DEBUG=2: the trace's last 4 MB */
#define VG_TRACE_LINES 80	/* of which the last lines are printed */
#define VG_BPF_LOG_LEVEL1 1
#define VG_BPF_LOG_STATS 4

struct vg_load_stats {
	int n;
	size_t size;		/* of each log */
	char *logs;		/* n logs of size bytes */
};

static char *log_of(struct vg_load_stats *s, int i)
{
	return s->logs + (size_t)i * s->size;
}

struct vg_load_stats *vg_load_stats_arm(struct bpf_object *obj)
{
	const char *debug = getenv("VIGIL_DEBUG");
	bool trace = debug && atoi(debug) >= 2;
	struct vg_load_stats *s;
	struct bpf_program *prog;
	int i = 0;

	if (!debug)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	bpf_object__for_each_program(prog, obj)
		s->n++;
	s->size = trace ? VG_TRACE_LOG : VG_STATS_LOG;
	/* (calloc: untouched pages of the large logs cost nothing) */
	s->logs = calloc(s->n ? s->n : 1, s->size);
	if (!s->logs) {
		free(s);
		return NULL;
	}
	bpf_object__for_each_program(prog, obj) {
		/* the statistics only, not the whole trace: that would slow
		 * the load it measures */
		bpf_program__set_log_level(prog, VG_BPF_LOG_STATS |
					   (trace ? VG_BPF_LOG_LEVEL1 : 0));
		bpf_program__set_log_buf(prog, log_of(s, i++), s->size);
	}
	return s;
}

static unsigned long long stat_after(const char *log, const char *key)
{
	const char *at = strstr(log, key);

	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

/* A log of the statistics alone: the verifier accepted the program (a
 * refusal's log says why first). After a failed load, libbpf unloads
 * those it had loaded: their descriptor does not tell. */
static bool stats_only(const char *log)
{
	static const char *const stat[] = { "verification time ",
					    "stack depth ", "processed " };

	for (const char *l = log; *l; l = strchrnul(l, '\n'), l += *l != 0) {
		bool known = *l == '\n';

		for (size_t k = 0; k < sizeof(stat) / sizeof(stat[0]); k++)
			known |= !strncmp(l, stat[k], strlen(stat[k]));
		if (!known)
			return false;
	}
	return true;
}

/* The log of a program the kernel refused: its last VG_TRACE_LINES lines
 * (the error is at the end; a trace's start is rarely the story). */
static void print_refusal(const char *name, const char *log, FILE *out)
{
	const char *from = log + strlen(log);
	int lines = 0;

	while (from > log && lines <= VG_TRACE_LINES)
		if (*--from == '\n')
			lines++;
	if (lines > VG_TRACE_LINES)
		from++;
	fprintf(out, "vigil: debug: verifier: %s: REFUSED; the verifier's log%s:\n%s%s",
		name, from > log ? " (its end)" : "", from,
		from[strlen(from) ? strlen(from) - 1 : 0] == '\n' ? "" : "\n");
}

/* obj's programs loaded (or, skipped != NULL, not loaded) */
static int print_programs(struct vg_load_stats *s, struct bpf_object *obj,
			  struct bpf_object *side, char *skipped, size_t cap,
			  unsigned long long *total_us, FILE *out)
{
	struct bpf_program *prog;
	int i = 0, loaded = 0;
	char unoffered[512] = "", unloaded[512] = "";

	bpf_object__for_each_program(prog, obj) {
		const char *log = log_of(s, i++);
		struct bpf_program *sp = side ? bpf_object__find_program_by_name(
			side, bpf_program__name(prog)) : NULL;

		if (!bpf_program__autoload(prog)) {
			/* loaded by the side object, or not at all */
			if (skipped && !(sp && bpf_program__autoload(sp)))
				snprintf(skipped + strlen(skipped),
					 cap - strlen(skipped), " %s",
					 bpf_program__name(prog));
			continue;
		}
		/* a failed load: the program the verifier refused (its log
		 * says why), those it accepted before (unloaded with the
		 * object), and those without a log: refused before the
		 * verifier ran, or never offered (libbpf stops at the first
		 * failure) */
		if (bpf_program__fd(prog) < 0) {
			char *list = !*log ? unoffered
				     : stats_only(log) ? unloaded : NULL;

			if (list)
				snprintf(list + strlen(list),
					 sizeof(unoffered) - strlen(list),
					 " %s", bpf_program__name(prog));
			else
				print_refusal(bpf_program__name(prog), log, out);
			continue;
		}
		loaded++;
		*total_us += stat_after(log, "verification time ");
		fprintf(out, "vigil: debug: verifier: %-12s %6llu us, %7llu insns processed\n",
			bpf_program__name(prog),
			stat_after(log, "verification time "),
			stat_after(log, "processed "));
	}
	if (*unloaded)
		fprintf(out, "vigil: debug: verifier: accepted, then unloaded with the object:%s\n",
			unloaded);
	if (*unoffered)
		fprintf(out, "vigil: debug: verifier: no log (the first refused before the verifier ran, or all never offered: libbpf stops at the first failure):%s\n",
			unoffered);
	return loaded;
}

void vg_load_stats_refused(struct vg_load_stats *s, struct bpf_object *obj,
			   FILE *out)
{
	struct bpf_program *prog;
	int i = 0;

	if (!s)
		return;
	bpf_object__for_each_program(prog, obj) {
		const char *log = log_of(s, i++);

		if (bpf_program__autoload(prog) && bpf_program__fd(prog) < 0 &&
		    *log && !stats_only(log))
			print_refusal(bpf_program__name(prog), log, out);
	}
	vg_load_stats_free(s);
}

void vg_load_stats_free(struct vg_load_stats *s)
{
	if (!s)
		return;
	free(s->logs);
	free(s);
}

void vg_load_stats_print(struct vg_load_stats *s, struct bpf_object *obj,
			 struct vg_load_stats *side_s, struct bpf_object *side,
			 unsigned long long load_ns, FILE *out)
{
	unsigned long long total_us = 0;
	char skipped[512] = "";
	int loaded;

	if (!s) {
		vg_load_stats_free(side_s);
		return;
	}
	loaded = print_programs(s, obj, side, skipped, sizeof(skipped),
				&total_us, out);
	if (side && side_s)
		loaded += print_programs(side_s, side, NULL, NULL, 0,
					 &total_us, out);
	/* the verifier's time is the sum: with a side object, some of it
	 * ran at the same time as the rest (the load's own time says) */
	fprintf(out, "vigil: debug: verifier: %d programs loaded in %llu ms (verifier %llu ms); not loaded:%s\n",
		loaded, load_ns / 1000000, total_us / 1000,
		*skipped ? skipped : " none");
	vg_load_stats_free(s);
	vg_load_stats_free(side_s);
}
