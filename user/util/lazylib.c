/* Libraries loaded when a run first uses them (lazylib.h).
 *
 * libmicrohttpd and libsystemd bring 17 libraries between them (and
 * libcurl, for --webhook, as many again) (gnutls,
 * gcrypt, lz4, ...), which the dynamic loader maps and relocates before
 * main in every vigil process, whatever the command: a C program linked
 * with them took 18-24 ms of CPU and 369 page faults to do nothing,
 * against 6-9 ms and 141 without them, on a VM whose page faults trap to
 * the hypervisor. vigil links neither: the few functions it calls are
 * defined here with the libraries' own prototypes, each calling the
 * library's on first use (dlopen by the soname the build linked against,
 * the Makefile's VG_MHD_SONAME, VG_SYSTEMD_SONAME and VG_CURL_SONAME). A library that
 * cannot be loaded makes its functions fail as they document failure
 * (NULL, MHD_NO, a negative errno) with errno ELIBACC; the callers ask
 * vg_lazylib_*_error why. */
#include "lazylib.h"

/* the functions themselves, not curl.h's type-checking macros */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-journal.h>

struct lib {
	const char *soname;
	pthread_once_t once;
	void *handle;
	char error[512];
};

static struct lib mhd = { .soname = VG_MHD_SONAME, .once = PTHREAD_ONCE_INIT };
static struct lib systemd = { .soname = VG_SYSTEMD_SONAME,
			      .once = PTHREAD_ONCE_INIT };
static struct lib curl = { .soname = VG_CURL_SONAME, .once = PTHREAD_ONCE_INIT };

static void open_lib(struct lib *l)
{
	const char *why;

	if (!(l->handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL))) {
		why = dlerror();
		snprintf(l->error, sizeof(l->error), "%s",
			 why ? why : l->soname);
	}
}

static void open_mhd(void) { open_lib(&mhd); }
static void open_systemd(void) { open_lib(&systemd); }
static void open_curl(void) { open_lib(&curl); }

const char *vg_lazylib_mhd_error(void)
{
	pthread_once(&mhd.once, open_mhd);
	return mhd.handle ? NULL : mhd.error;
}

const char *vg_lazylib_systemd_error(void)
{
	pthread_once(&systemd.once, open_systemd);
	return systemd.handle ? NULL : systemd.error;
}

const char *vg_lazylib_curl_error(void)
{
	pthread_once(&curl.once, open_curl);
	return curl.handle ? NULL : curl.error;
}

/* The library's NAME, or NULL with errno ELIBACC; resolved once (threads
 * that race store the same pointer) */
#define REAL(lib, failed, name)						\
	static __typeof__(&name) real_##name;				\
	__typeof__(&name) fn = __atomic_load_n(&real_##name,		\
					       __ATOMIC_ACQUIRE);	\
	if (!fn) {							\
		if (!failed())						\
			fn = (__typeof__(&name))dlsym(lib.handle, #name); \
		__atomic_store_n(&real_##name, fn, __ATOMIC_RELEASE);	\
	}								\
	if (!fn)							\
		errno = ELIBACC

static int mhd_failed(void) { return vg_lazylib_mhd_error() != NULL; }
static int systemd_failed(void) { return vg_lazylib_systemd_error() != NULL; }
static int curl_failed(void) { return vg_lazylib_curl_error() != NULL; }

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port,
				    MHD_AcceptPolicyCallback apc, void *apc_cls,
				    MHD_AccessHandlerCallback dh, void *dh_cls,
				    ...)
{
	struct MHD_Daemon *d;
	va_list ap;
	REAL(mhd, mhd_failed, MHD_start_daemon_va);

	if (!fn)
		return NULL;
	va_start(ap, dh_cls);
	d = fn(flags, port, apc, apc_cls, dh, dh_cls, ap);
	va_end(ap);
	return d;
}

void MHD_stop_daemon(struct MHD_Daemon *daemon)
{
	REAL(mhd, mhd_failed, MHD_stop_daemon);

	if (fn)
		fn(daemon);
}

const union MHD_DaemonInfo *MHD_get_daemon_info(struct MHD_Daemon *daemon,
						enum MHD_DaemonInfoType info_type,
						...)
{
	REAL(mhd, mhd_failed, MHD_get_daemon_info);

	/* the info types vigil asks for take no further argument */
	return fn ? fn(daemon, info_type) : NULL;
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer,
						     enum MHD_ResponseMemoryMode mode)
{
	REAL(mhd, mhd_failed, MHD_create_response_from_buffer);

	return fn ? fn(size, buffer, mode) : NULL;
}

struct MHD_Response *MHD_create_response_from_callback(uint64_t size,
						       size_t block_size,
						       MHD_ContentReaderCallback crc,
						       void *crc_cls,
						       MHD_ContentReaderFreeCallback crfc)
{
	REAL(mhd, mhd_failed, MHD_create_response_from_callback);

	return fn ? fn(size, block_size, crc, crc_cls, crfc) : NULL;
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response,
					const char *header, const char *content)
{
	REAL(mhd, mhd_failed, MHD_add_response_header);

	return fn ? fn(response, header, content) : MHD_NO;
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection,
				   unsigned int status_code,
				   struct MHD_Response *response)
{
	REAL(mhd, mhd_failed, MHD_queue_response);

	return fn ? fn(connection, status_code, response) : MHD_NO;
}

void MHD_destroy_response(struct MHD_Response *response)
{
	REAL(mhd, mhd_failed, MHD_destroy_response);

	if (fn)
		fn(response);
}

const char *MHD_lookup_connection_value(struct MHD_Connection *connection,
					enum MHD_ValueKind kind, const char *key)
{
	REAL(mhd, mhd_failed, MHD_lookup_connection_value);

	return fn ? fn(connection, kind, key) : NULL;
}

/* what sd-journal.h makes of sd_journal_sendv: the caller's file, line
 * and function go to the journal too */
int sd_journal_sendv_with_location(const char *file, const char *line,
				   const char *func, const struct iovec *iov,
				   int n)
{
	REAL(systemd, systemd_failed, sd_journal_sendv_with_location);

	return fn ? fn(file, line, func, iov, n) : -ELIBACC;
}

CURLcode curl_global_init(long flags)
{
	REAL(curl, curl_failed, curl_global_init);

	return fn ? fn(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
	REAL(curl, curl_failed, curl_easy_init);

	return fn ? fn() : NULL;
}

/* an option's one argument, by the type its number says (curl.h's
 * CURLOPTTYPE_* ranges) */
CURLcode curl_easy_setopt(CURL *c, CURLoption opt, ...)
{
	CURLcode r = CURLE_FAILED_INIT;
	va_list ap;
	REAL(curl, curl_failed, curl_easy_setopt);

	if (!fn)
		return r;
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		r = fn(c, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_OFF_T)
		r = fn(c, opt, va_arg(ap, void *));
	else
		r = fn(c, opt, va_arg(ap, curl_off_t));
	va_end(ap);
	return r;
}

/* the infos vigil asks for take a pointer */
CURLcode curl_easy_getinfo(CURL *c, CURLINFO info, ...)
{
	CURLcode r = CURLE_FAILED_INIT;
	va_list ap;
	REAL(curl, curl_failed, curl_easy_getinfo);

	if (!fn)
		return r;
	va_start(ap, info);
	r = fn(c, info, va_arg(ap, void *));
	va_end(ap);
	return r;
}

CURLcode curl_easy_perform(CURL *c)
{
	REAL(curl, curl_failed, curl_easy_perform);

	return fn ? fn(c) : CURLE_FAILED_INIT;
}

void curl_easy_cleanup(CURL *c)
{
	REAL(curl, curl_failed, curl_easy_cleanup);

	if (fn)
		fn(c);
}

const char *curl_easy_strerror(CURLcode code)
{
	REAL(curl, curl_failed, curl_easy_strerror);

	return fn ? fn(code) : "libcurl could not be loaded";
}

struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s)
{
	REAL(curl, curl_failed, curl_slist_append);

	return fn ? fn(l, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *l)
{
	REAL(curl, curl_failed, curl_slist_free_all);

	if (fn)
		fn(l);
}
