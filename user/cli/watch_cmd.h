/* vigil watch (user/cli/watch_cmd.c). */
#ifndef VIGIL_WATCH_CMD_H
#define VIGIL_WATCH_CMD_H

/* argv[0] is the command */
int vg_cmd_watch(int argc, char **argv);

#endif
