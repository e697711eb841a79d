/* libplugin.so: a library its host loads with dlopen, not through
 * DT_NEEDED, so the loader's view of the host does not name it. Built
 * outside tests/targets/*.c (the Makefile builds those as programs). */
#include <stdio.h>
#include <stdlib.h>

#include "plugin.h"

__attribute__((noinline)) void plugin_init(struct plugin_ctx *ctx)
{
	ctx->magic = PLUGIN_MAGIC;
	ctx->steps = 0;
}

/* A context that plugin_init did not set up (or that plugin_fini tore
 * down) is the host's bug: abort, as a real plugin would crash on it. */
__attribute__((noinline)) int plugin_step(struct plugin_ctx *ctx)
{
	if (ctx->magic != PLUGIN_MAGIC) {
		fprintf(stderr, "plugin: plugin_step on a context not initialised\n");
		abort();
	}
	return (int)++ctx->steps;
}

__attribute__((noinline)) void plugin_fini(struct plugin_ctx *ctx)
{
	ctx->magic = 0;
}
