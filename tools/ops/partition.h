/* SPDX-License-Identifier: BSD-2-Clause */
/* partition: a new layout written onto a disk, and what --force erases first. */
#ifndef ANYSECTOR_TOOLS_PARTITION_H
#define ANYSECTOR_TOOLS_PARTITION_H

#include <stdbool.h>

#include "tools/dev/hostdev.h"
#include "tools/dev/probe.h"
#include "tools/disk/layout.h"

/* Writes a new layout (tables, wiped gaps, formatted ESP). With dry_run only prints it. Returns
 * 0 or an exit code. */
int partition_disk(struct hostdev *h, const struct layout_opts *lo, bool dry_run);

/* --force: erases the signatures found (tools/disk/foreign.h) as a journalled plan of their own,
 * saved to backup (NULL: the default path). With dry_run only prints it. Returns 0 or an exit
 * code. */
int partition_erase_found(struct hostdev *h, const struct probe_result *found, const char *backup,
			  bool dry_run);

#endif
