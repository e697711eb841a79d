#include "libc_own.h"

#include <string.h>

static bool prefixed(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

bool vg_leak_libc_object(const char *obj)
{
	static const char *const libs[] = {
		"libc.so", "libpthread.so", "libdl.so", "librt.so",
		"libresolv.so", "libnss_", "libm.so", "libutil.so",
		"libanl.so",
	};
	const char *base;

	if (!obj || !obj[0])
		return false;
	base = strrchr(obj, '/');
	base = base ? base + 1 : obj;
	if (prefixed(base, "ld-linux") || prefixed(base, "ld.so") ||
	    prefixed(base, "ld64.so"))
		return true;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (prefixed(base, libs[i]))
			return true;
	return false;
}

bool vg_leak_libc_stack(const struct vg_leak_frame *f, int n)
{
	if (n <= 0)
		return false;
	for (int i = 0; i < n; i++)
		if (!vg_leak_libc_object(f[i].obj))
			return false;
	return true;
}

bool vg_leak_libc_own(const struct vg_leak_frame *f, int n,
		      enum vg_leak_kind k)
{
	return k == VG_LEAK_REACHABLE && vg_leak_libc_stack(f, n);
}
