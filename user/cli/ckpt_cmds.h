/* vigil restore and vigil checkpoint. */
#ifndef VIGIL_CKPT_CMDS_H
#define VIGIL_CKPT_CMDS_H

int vg_cmd_restore(int argc, char **argv);
int vg_cmd_checkpoint(int argc, char **argv);

#endif
