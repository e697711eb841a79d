/* vigil agent: the host service's options (user/agent/). */
#ifndef VIGIL_AGENT_CMD_H
#define VIGIL_AGENT_CMD_H

int vg_cmd_agent(int argc, char **argv);

#endif
