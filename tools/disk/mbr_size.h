/* SPDX-License-Identifier: BSD-2-Clause */
/* The sector size of an image that holds only an MBR, which its table does not say (its LBAs
 * mean nothing without it): told by what the disk holds, or not at all. */
#ifndef ANYSECTOR_TOOLS_MBR_SIZE_H
#define ANYSECTOR_TOOLS_MBR_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "common/mbr.h"

/* The bytes per sector a FAT boot sector at byte off of fd (size bytes long) declares; 0 when
 * no boot sector is there. */
unsigned fat_bps_at(int fd, uint64_t size, uint64_t off);

/* The sector size of the image fd (size bytes) whose LBA 0 holds m, from 512, 1024, 2048 and
 * 4096, among those at which every entry of m lies inside the image: the one size at which the
 * boot partition (mbr_boot_part) begins with a FAT boot sector declaring that size, else the one
 * size at which anysector's stage1 in lba0 points at a valid stage2 on a sector boundary before
 * the first partition, else the one size at which the entries fit at all. *lss gets it and
 * how[cap] says how it was told. When no single size is told, *fits gets the sizes that fit (a
 * bit set of the sizes themselves; 0: none) and *lss 0. */
void mbr_image_sector_size(int fd, uint64_t size, const uint8_t *lba0, const struct mbr *m,
			   uint32_t *lss, unsigned *fits, char *how, size_t cap);

#endif
