/* SPDX-License-Identifier: BSD-2-Clause */
/* The entry points of anysector info and check. */
#ifndef ANYSECTOR_TOOLS_CMD_INFO_H
#define ANYSECTOR_TOOLS_CMD_INFO_H

/* argv[0] is the command's name. Returns the exit code anysector ends with (tools/base/exit_codes.h
 * kind 1). */
int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif
