/* bench/recsize.c - prints the sizes of vigil's ring-buffer records, taken
 * from include/vigil_event.h, so the benchmark can turn record counts into
 * ring-buffer bytes. A BPF ring-buffer record also carries an 8-byte header
 * (BPF_RINGBUF_HDR_SZ) and is padded to a multiple of 8. */
#include <stdio.h>
#include "vigil_event.h"

#define RB(sz) ((((sz) + 8) + 7) / 8 * 8)

int main(void)
{
	printf("event=%zu kstep=%zu\n", (size_t)RB(sizeof(struct vg_rec_event)),
	       (size_t)RB(sizeof(struct vg_rec_kstep)));
	return 0;
}
