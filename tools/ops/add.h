/* SPDX-License-Identifier: BSD-2-Clause */
/* add as a write plan: kernels, initrds, EFI applications or chainloads as boot entries. */
#ifndef ANYSECTOR_TOOLS_ADD_H
#define ANYSECTOR_TOOLS_ADD_H

#include <stdbool.h>

#include "common/config.h"
#include "tools/ops/txn.h"

struct add_entry {
	enum cfg_kind kind;         /* --kernel, --efi or --chainload */
	const char *kernel;         /* the kernel or EFI application file; chainload: its target */
	unsigned partition;         /* efi: kernel is a path on this FAT partition of the disk, not
				     * a host file to copy (0: copied to the ESP) */
	const char *initrd[CFG_MAX_INITRDS];
	unsigned ninitrd;
	const char *cmdline;
	const char *title;
	const char *name;
	bool make_default;
	bool pin;                   /* --pin: sha256 lines for the kernel and each initrd */
	unsigned tries;             /* --tries N: boot counting ("tries N"), 0: none */
};

/* Copies each entry's files to the ESP and adds its lines to anysector.cfg (replacing an entry
 * of the same name with t->replace). Returns 0 or an exit code. */
int txn_add(struct txn *t, const struct add_entry *entries, unsigned n);

#endif
