/* A host that loads its plugin with dlopen: tests/e2e/dlopen.sh.
 *
 *   dlhost [--bug] [--pause | --pause-loaded] [--plugin PATH] [N [M]]
 *
 * Loads PATH (default: libplugin.so next to this executable), calls
 * plugin_init, plugin_step N times, plugin_fini, unloads it (dlclose),
 * waits, loads it again and calls plugin_step M more times the same way.
 * It prints its own count of plugin_step calls, and whether dlclose
 * really unmapped the library (the probes must then survive a new
 * mapping, not just a library that stayed in memory).
 *
 * --bug: after the reload the host forgets plugin_init, and passes the
 * context plugin_fini tore down: plugin_step aborts on it.
 * --pause: wait for SIGUSR1 before the first dlopen (for vigil attach).
 * --pause-loaded: the same once the first load is initialized, before its
 * steps (for vigil attach to a program that dlopen'ed its plugin). */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/plugin.h"

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	go = 1;
}

static int mapped(const char *path)
{
	char line[4096], *base = strrchr(path, '/');
	FILE *f = fopen("/proc/self/maps", "r");
	int yes = 0;

	base = base ? base + 1 : (char *)path;
	while (f && fgets(line, sizeof(line), f))
		yes |= strstr(line, base) != NULL;
	if (f)
		fclose(f);
	return yes;
}

/* until SIGUSR1 comes */
static void wait_usr1(const char *what)
{
	sigset_t usr1, old;

	printf("dlhost: waiting for SIGUSR1 %s\n", what);
	fflush(stdout);
	signal(SIGUSR1, on_usr1);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	while (!go)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	go = 0;
}

/* one load of the plugin: init (unless skip_init), n steps, fini, unload;
 * with pause, a wait for SIGUSR1 between init and the steps */
static long session(const char *path, long n, int skip_init, int pause,
		    struct plugin_ctx *ctx)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	plugin_init_fn init;
	plugin_step_fn step;
	plugin_fini_fn fini;
	long i;

	if (!h) {
		fprintf(stderr, "dlhost: %s\n", dlerror());
		exit(2);
	}
	init = (plugin_init_fn)dlsym(h, "plugin_init");
	step = (plugin_step_fn)dlsym(h, "plugin_step");
	fini = (plugin_fini_fn)dlsym(h, "plugin_fini");
	if (!init || !step || !fini) {
		fprintf(stderr, "dlhost: %s lacks a plugin_* function\n", path);
		exit(2);
	}
	if (!skip_init)
		init(ctx);
	if (pause)
		wait_usr1("with the plugin loaded");
	for (i = 0; i < n; i++)
		step(ctx);
	fini(ctx);
	dlclose(h);
	return i;
}

int main(int argc, char **argv)
{
	static struct plugin_ctx ctx;
	char path[4096], *slash;
	const char *plugin = NULL;
	long n = 1000, m = 500, before, after;
	int bug = 0, pause_first = 0, pause_loaded = 0, a = 1;
	ssize_t len;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--bug"))
			bug = 1;
		else if (!strcmp(argv[a], "--pause"))
			pause_first = 1;
		else if (!strcmp(argv[a], "--pause-loaded"))
			pause_loaded = 1;
		else if (!strcmp(argv[a], "--plugin") && a + 1 < argc)
			plugin = argv[++a];
		else {
			fprintf(stderr, "usage: dlhost [--bug] [--pause | --pause-loaded] [--plugin PATH] [N [M]]\n");
			return 2;
		}
	}
	if (a < argc)
		n = atol(argv[a++]);
	if (a < argc)
		m = atol(argv[a++]);
	if (!plugin) {
		len = readlink("/proc/self/exe", path, sizeof(path) - 32);
		if (len <= 0)
			return 2;
		path[len] = 0;
		slash = strrchr(path, '/');
		strcpy(slash ? slash + 1 : path, "libplugin.so");
		plugin = path;
	}
	printf("dlhost: pid %d\n", getpid());
	fflush(stdout);
	if (pause_first)
		wait_usr1("before the first dlopen");
	before = session(plugin, n, 0, pause_loaded, &ctx);
	printf("dlhost: unloaded, %s\n",
	       mapped(plugin) ? "still mapped" : "not mapped");
	fflush(stdout);
	usleep(200 * 1000);
	after = session(plugin, m, bug, 0, &ctx);
	printf("dlhost: calls=%ld (%ld before the reload, %ld after)\n",
	       before + after, before, after);
	return 0;
}
