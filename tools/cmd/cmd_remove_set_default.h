/* SPDX-License-Identifier: BSD-2-Clause */
/* The entry points of anysector remove and set-default. */
#ifndef ANYSECTOR_TOOLS_CMD_REMOVE_SET_DEFAULT_H
#define ANYSECTOR_TOOLS_CMD_REMOVE_SET_DEFAULT_H

/* argv[0] is the command's name. Returns the exit code anysector ends with (tools/base/exit_codes.h
 * kind 1). */
int cmd_remove(int argc, char **argv);
int cmd_set_default(int argc, char **argv);

#endif
