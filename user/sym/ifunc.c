/* The implementation an IFUNC symbol resolves to (memcpy, strlen in libc),
 * for a probe that must see its calls: the symbol's own address is the
 * resolver, which runs once at load time.
 *
 * The resolver picks by CPU features; vigil runs on the same CPU as the
 * target, so when the target's object is a file vigil itself has loaded
 * (libc), the implementation vigil's own dynamic loader chose for vigil is
 * the one the target's chose: dlsym through a handle to that very file
 * (RTLD_NOLOAD: never load anything) runs the resolver, and dladdr gives
 * the object's load base, hence the link-time address. A target run with
 * GLIBC_TUNABLES that mask CPU features may choose another one: then its
 * calls go unseen, as before this lookup. */
#include "sym_internal.h"

#include <dlfcn.h>
#include <stdint.h>

bool vg_ifunc_impl_vaddr(const char *path, const char *name,
			 uint64_t *vaddr)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	void *impl;
	Dl_info info;

	if (!h)
		return false;		/* not an object of vigil's own */
	impl = dlsym(h, name);
	dlclose(h);
	if (!impl || !dladdr(impl, &info) || !info.dli_fbase ||
	    (uintptr_t)impl < (uintptr_t)info.dli_fbase)
		return false;
	*vaddr = (uint64_t)((uintptr_t)impl - (uintptr_t)info.dli_fbase);
	return true;
}
