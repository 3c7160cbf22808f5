/* SPDX-License-Identifier: BSD-2-Clause */
/* Formatting the ESP with mkfs.fat, in the type and cluster size tools/esp/fatsize.h chooses. The
 * filesystem's sector size is the disk's logical sector size (-S), its hidden sectors the
 * partition's start in those units (-h). */
#ifndef ANYSECTOR_TOOLS_FATFMT_H
#define ANYSECTOR_TOOLS_FATFMT_H

#include <stdint.h>

#include "tools/dev/hostdev.h"

/* Formats [first_lba, first_lba + sectors) of the target: mkfs.fat makes the filesystem in a
 * temporary file, which is copied in; the result is read back with common/fat.c and its type,
 * cluster count, sector size and hidden sectors checked. bps is the filesystem's sector size:
 * 0 for the disk's; a larger one (a dual GPT's 4096, readable on every disk of that size or
 * smaller) needs the partition to be whole such sectors.
 * Returns 0 or an exit code. */
int fatfmt_format(struct hostdev *h, uint64_t first_lba, uint64_t sectors, const char *label,
		  uint32_t bps);

#endif
