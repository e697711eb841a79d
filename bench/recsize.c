/* bench/recsize.c - prints the sizes of vigil's ring-buffer records, taken
 * from include/vigil_event.h, so the benchmark can turn record counts into
 * ring-buffer bytes. A BPF ring-buffer record also carries an 8-byte header
 * (BPF_RINGBUF_HDR_SZ) and is padded to a multiple of 8. A user-tier event
 * record carries only the slots its event uses: bench/loop.vigil's events
 * use one argument, so theirs is the smallest (event=); event_full= is
 * one with every slot. */
#include <stdio.h>
#include "vigil_event.h"

#define RB(sz) ((((sz) + 8) + 7) / 8 * 8)

int main(void)
{
	printf("event=%zu kstep=%zu event_full=%zu\n",
	       (size_t)RB(VG_REC_EVENT_BYTES(vg_rec_slots_for(1))),
	       (size_t)RB(sizeof(struct vg_rec_kstep)),
	       (size_t)RB(sizeof(struct vg_rec_event)));
	return 0;
}
