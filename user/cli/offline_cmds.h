/* vigil check, vigil graph and vigil lint (user/cli/offline_cmds.c):
 * the commands that need no kernel. */
#ifndef VIGIL_OFFLINE_CMDS_H
#define VIGIL_OFFLINE_CMDS_H

int vg_cmd_check(int argc, char **argv);
int vg_cmd_graph(int argc, char **argv);
int vg_cmd_lint(int argc, char **argv);

#endif
