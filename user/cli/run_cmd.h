/* vigil run and vigil attach (user/cli/run_cmd.c). */
#ifndef VIGIL_RUN_CMD_H
#define VIGIL_RUN_CMD_H

#include <stdbool.h>

/* argv[0] is the command; attach takes -p PID instead of -- PROGRAM. */
int vg_cmd_run(int argc, char **argv, bool attach);

#endif
