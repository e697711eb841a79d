/* The in-process agent, as vigil carries it (build/inproc/agent_blob.c,
 * from inproc/ by inproc/Makefile.inc): a flat blob that starts with a
 * struct vg_agent_head (include/vigil_fast.h). */
#ifndef VG_FAST_AGENT_BLOB_H
#define VG_FAST_AGENT_BLOB_H

extern const unsigned char vg_agent_blob[];
extern const unsigned int vg_agent_blob_len;

#endif
