/* Included first in every inproc/ file (inproc/Makefile.inc's -include):
 * every symbol the agent declares or defines is hidden, so that the
 * compiler reaches each one %rip-relative.
 *
 * Why: -fvisibility=hidden covers definitions only. A function declared
 * in a header (vg_yield in agent.h) whose address is taken in another
 * file was loaded from the GOT (`mov vg_yield@GOTPCREL(%rip), %rax`),
 * and the static link at address 0 relaxes that load into the constant
 * `mov $0x57c0, %rax`: the blob's offset, not the address in the target.
 * The target jumped to 0x57c0 the first time a thread waited long on a
 * slice's lock (kstep.c's yield): a thread storm, about 1 run in 20.
 * The Makefile now refuses any relocation but %rip-relative ones. */
#pragma GCC visibility push(hidden)
