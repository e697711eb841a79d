/* What user/symval/ asks of the session (symval/symval.h,
 * vg_symval_host_*) beyond vg_run_pid and what it is given when made:
 * the program's file, known only once the target is started, and the
 * probes, opened after it is made. The names of pointers see the session
 * as a struct vg_run only; this file is where that run is the session
 * again, as leaks_host.c is for the leak check. */
#include "session_internal.h"

#include "symval/symval.h"

static const struct session *S(const struct vg_run *r)
{
	return (const struct session *)r;
}

const char *vg_symval_host_exe(const struct vg_run *r)
{
	return S(r)->exe;
}
