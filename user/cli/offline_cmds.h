/* vigil check and vigil graph (user/cli/offline_cmds.c). */
#ifndef VIGIL_OFFLINE_CMDS_H
#define VIGIL_OFFLINE_CMDS_H

extern const char vg_usage_check[];
extern const char vg_usage_graph[];

int vg_cmd_check(int argc, char **argv);
int vg_cmd_graph(int argc, char **argv);

#endif
