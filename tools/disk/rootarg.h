/* SPDX-License-Identifier: BSD-2-Clause */
/* The root= argument of a one-step image (mkimage --root-dir): the kernel finds the root
 * filesystem by its partition's PARTUUID, which the kernel (block/partitions/) and udev spell
 * as the GPT unique GUID in lower case, or on an MBR disk as the disk signature and the
 * partition number, both in hex: "%08x-%02x". */
#ifndef ANYSECTOR_TOOLS_ROOTARG_H
#define ANYSECTOR_TOOLS_ROOTARG_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/disk/inspect.h"

/* True when a word of the command line is a root= argument. */
bool cmdline_has_root(const char *cmdline);

/* The Linux partition mkimage fills: the first GPT "Linux filesystem" entry or MBR type 0x83
 * partition that is not the boot partition. Returns its index in di->parts, or -1. */
int root_part_index(const struct disk_info *di);

/* "root=PARTUUID=..." for partition p of the disk into out[cap]. */
void root_partuuid_arg(const struct disk_info *di, const struct part_info *p, char *out,
		       size_t cap);

/* The length of root_partuuid_arg's text on a disk with that label (the same on every such
 * disk), so a command line can be checked before the disk is made. */
size_t root_partuuid_arg_len(enum label_kind label);

/* cmdline (NULL: none) with arg appended after a space, into out[cap]. Returns 0, or AS_ERANGE
 * when it does not fit. */
int cmdline_append(const char *cmdline, const char *arg, char *out, size_t cap);

#endif
