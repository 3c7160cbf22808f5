/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef ANYSECTOR_TOOLS_CMD_STATUS_H
#define ANYSECTOR_TOOLS_CMD_STATUS_H

/* argv[0] is the command's name. Returns the exit code anysector ends with (tools/base/exit_codes.h
 * kind 1). */
int cmd_status(int argc, char **argv);

#endif
