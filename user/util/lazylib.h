/* Libraries loaded when a run first uses them (lazylib.c): libmicrohttpd
 * (--view, --metrics, the agent's endpoint), libsystemd (--journal) and
 * libcurl (--webhook).
 * Their functions are called by their own names and prototypes; these
 * say whether a library could be loaded, and why not. */
#ifndef VIGIL_UTIL_LAZYLIB_H
#define VIGIL_UTIL_LAZYLIB_H

/* NULL when libmicrohttpd is loaded (loading it now if it was not), else
 * what dlopen said */
const char *vg_lazylib_mhd_error(void);
/* the same for libsystemd */
const char *vg_lazylib_systemd_error(void);
/* and for libcurl (--webhook) */
const char *vg_lazylib_curl_error(void);

#endif
