/* The stubs of the in-process tier (include/vigil_fast.h): the code a
 * patched function's jmp goes to, which calls the agent
 * (inproc/agent.c) with the registers saved, and the code a hijacked
 * return goes to. */
#ifndef VG_FAST_TRAMP_H
#define VG_FAST_TRAMP_H

#include <stddef.h>
#include <stdint.h>

#define VG_TRAMP_ENTRY_MAX 152	/* bytes a stub takes at most */
/* where in an entry stub a thread it stopped waits (after its kill):
 * %rsp then points at the saved flags, a struct vg_fast_regs above
 * them */
#define VG_TRAMP_STOPPED 110
#define VG_TRAMP_RETURN_MAX 80

/* Write at buf (cap bytes; the stub will run at `at` in the target) the
 * entry stub of hook: vg_agent_entry(regs, hook) at agent_entry, then on
 * to the relocated first instructions at reloc. Its length, or -1 when
 * cap is too small. */
int vg_tramp_entry_stub(uint8_t *buf, size_t cap, uint64_t at, uint32_t hook,
			uint64_t agent_entry, uint64_t reloc);

/* The return stub of hook: vg_agent_return(regs, hook), then on to the
 * return address it gives, rax and rdx as the function left them. */
int vg_tramp_return_stub(uint8_t *buf, size_t cap, uint64_t at, uint32_t hook,
			 uint64_t agent_return);

#endif
