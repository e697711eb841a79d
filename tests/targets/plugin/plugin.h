/* The interface of libplugin.so, the library tests/targets/dlhost.c loads
 * with dlopen (tests/e2e/dlopen.sh monitors its functions with --lib). */
#ifndef VIGIL_TEST_PLUGIN_H
#define VIGIL_TEST_PLUGIN_H

#define PLUGIN_MAGIC 0x706c7567	/* "plug" */

struct plugin_ctx {
	int magic;		/* PLUGIN_MAGIC between init and fini */
	long steps;
};

typedef void (*plugin_init_fn)(struct plugin_ctx *ctx);
typedef int (*plugin_step_fn)(struct plugin_ctx *ctx);
typedef void (*plugin_fini_fn)(struct plugin_ctx *ctx);

#endif
