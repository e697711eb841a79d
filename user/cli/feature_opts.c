/* The features' options on the command line (feature_opts.h). */
#include "feature_opts.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* the i-th option of all features', in registration order */
static const struct vg_feature_opt *nth(int i)
{
	int n;
	const struct vg_feature *const *f = vg_features(&n);

	for (int k = 0; k < n; k++)
		for (const struct vg_feature_opt *o = f[k]->opts; o && o->name;
		     o++)
			if (!i--)
				return o;
	return NULL;
}

struct option *vg_cli_feature_options(const struct option *base)
{
	int nb = 0, nf = 0;
	struct option *all;

	while (base[nb].name)
		nb++;
	while (nth(nf))
		nf++;
	if (!(all = calloc((size_t)nb + nf + 1, sizeof(*all))))
		return NULL;
	memcpy(all, base, (size_t)nb * sizeof(*all));
	for (int i = 0; i < nf; i++)
		all[nb + i] = (struct option){
			.name = nth(i)->name,
			.has_arg = !nth(i)->arg ? no_argument
				   : nth(i)->optional ? optional_argument
				   : required_argument,
			.val = VG_FEATURE_OPT_BASE + i,
		};
	return all;
}

int vg_cli_feature_take(int c, const char *optarg,
			struct vg_feature_arg *args, int *n, const char *usage,
			bool watch)
{
	const struct vg_feature_opt *o;
	const char *why;

	if (c < VG_FEATURE_OPT_BASE || !(o = nth(c - VG_FEATURE_OPT_BASE)))
		return -1;
	if (watch && o->not_watch) {
		fprintf(stderr, "vigil: vigil watch does not take --%s: %s\n",
			o->name, o->not_watch);
		return 2;
	}
	if (optarg && o->check && (why = o->check(optarg))) {
		char msg[512];

		snprintf(msg, sizeof(msg), "--%s: '%s' %s", o->name, optarg, why);
		return vg_cli_usage(usage, "%s", msg);
	}
	args[*n].name = o->name;
	args[*n].value = optarg ? optarg : "";
	(*n)++;
	return 0;
}

void vg_cli_feature_help(FILE *out)
{
	const struct vg_feature_opt *o;

	fputs("\nfeatures' options:\n", out);
	for (int i = 0; (o = nth(i)); i++)
		if (o->help)
			fprintf(out, "  --%s%s%s%s\n      %s\n", o->name,
				o->arg ? (o->optional ? "[=" : " ") : "",
				o->arg ? o->arg : "",
				o->arg && o->optional ? "]" : "", o->help);
}
