/* `vigil doctor`: what this machine lets vigil do (doctor_cmd.c) */
#ifndef VIGIL_CLI_DOCTOR_CMD_H
#define VIGIL_CLI_DOCTOR_CMD_H

int vg_cmd_doctor(int argc, char **argv);

#endif
