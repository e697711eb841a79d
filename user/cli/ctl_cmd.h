/* vigil ctl PID COMMAND: a request to the vigil that monitors PID. */
#ifndef VIGIL_CTL_CMD_H
#define VIGIL_CTL_CMD_H

int vg_cmd_ctl(int argc, char **argv);
/* vigil view PID: the URL of the live page of that session (`ctl view`) */
int vg_cmd_view(int argc, char **argv);

#endif
