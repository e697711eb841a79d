/* The features' options on the command line (feature_opts.h). */
#include "feature_opts.h"

#include <stdlib.h>
#include <string.h>

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
			.has_arg = nth(i)->arg ? required_argument : no_argument,
			.val = VG_FEATURE_OPT_BASE + i,
		};
	return all;
}

bool vg_cli_feature_take(int c, const char *optarg,
			 struct vg_feature_arg *args, int *n)
{
	const struct vg_feature_opt *o;

	if (c < VG_FEATURE_OPT_BASE || !(o = nth(c - VG_FEATURE_OPT_BASE)))
		return false;
	args[*n].name = o->name;
	args[*n].value = o->arg ? optarg : "";
	(*n)++;
	return true;
}

void vg_cli_feature_help(FILE *out)
{
	const struct vg_feature_opt *o;

	fputs("\nfeatures' options:\n", out);
	for (int i = 0; (o = nth(i)); i++)
		fprintf(out, "  --%s%s%s\n      %s\n", o->name, o->arg ? " " : "",
			o->arg ? o->arg : "", o->help);
}
