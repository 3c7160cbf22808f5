/* SPDX-License-Identifier: BSD-2-Clause */
/* What the FAT reader's files (fat.c: mount and the table, fat_dir.c: directories and names,
 * fat_read.c: file data) share. Not for use outside common/fat*.c. */
#ifndef ANYSECTOR_FAT_INTERNAL_H
#define ANYSECTOR_FAT_INTERNAL_H

#include "common/fat.h"

#define FAT_DIRENT_SIZE 32u
#define FAT_ATTR_READ_ONLY 0x01
#define FAT_ATTR_HIDDEN 0x02
#define FAT_ATTR_SYSTEM 0x04
#define FAT_ATTR_VOLUME_ID 0x08
#define FAT_ATTR_DIRECTORY 0x10
#define FAT_ATTR_LONG_NAME 0x0F /* RO|HIDDEN|SYSTEM|VOLUME_ID: a long-name fragment */
#define FAT_ATTR_LONG_MASK 0x3F

#define FAT32_MASK 0x0FFFFFFFu        /* FAT32 entries: the top 4 bits are reserved */

/* fat_next() result for the end of a chain. */
#define FAT_CHAIN_END 0xFFFFFFFFu

static inline bool fat_cluster_ok(const struct fat_fs *fs, uint32_t c)
{
	return c >= 2 && c - 2 < fs->clusters;
}

static inline uint64_t fat_cluster_offset(const struct fat_fs *fs, uint32_t c)
{
	return fs->data_offset + (uint64_t)(c - 2) * fs->cluster_size;
}

/* The FAT entry of cluster c (c valid), as stored (FAT32: low 28 bits). */
int fat_entry(struct fat_fs *fs, uint32_t c, uint32_t *val, struct diag *d);

/* The cluster after c in the chain that starts at first: a valid cluster number or
 * FAT_CHAIN_END. A free, bad, reserved or out-of-range value is AS_ECORRUPT with a sentence
 * naming both clusters. */
int fat_next(struct fat_fs *fs, uint32_t first, uint32_t c, uint32_t *next, struct diag *d);

/* Device read with a sentence on failure ("FAT: device read of N bytes at byte X failed ..."). */
int fat_dev_read(struct fat_fs *fs, uint64_t off, void *buf, size_t len, const char *what,
		 struct diag *d);

#endif
