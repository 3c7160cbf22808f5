/* SPDX-License-Identifier: BSD-2-Clause */
/* The entry point of anysector repair. */
#ifndef ANYSECTOR_TOOLS_CMD_REPAIR_H
#define ANYSECTOR_TOOLS_CMD_REPAIR_H

/* argv[0] is the command's name. Returns the exit code anysector ends with (tools/base/exit_codes.h
 * kind 1). */
int cmd_repair(int argc, char **argv);

#endif
