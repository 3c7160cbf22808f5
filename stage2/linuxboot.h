/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef ANYSECTOR_STAGE2_LINUXBOOT_H
#define ANYSECTOR_STAGE2_LINUXBOOT_H

#include "common/config.h"
#include "common/measure.h"
#include "common/fat.h"

/* Loads the entry's kernel and initrds from fs and starts the kernel with cmdline. Returns only
 * on failure, after printing why. */
int linux_boot(struct fat_fs *fs, const struct cfg_entry *e, const char *cmdline,
	       struct measure *m);

#endif
