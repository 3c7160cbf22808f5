/* SPDX-License-Identifier: BSD-2-Clause */
/* The chains mtools will build on: mtools trusts the FAT it is handed, so before anything is
 * planned on an ESP every chain reachable from its root must be whole. */
#ifndef ANYSECTOR_TOOLS_ESP_CHAINS_H
#define ANYSECTOR_TOOLS_ESP_CHAINS_H

#include <stddef.h>

#include "common/blockdev.h"
#include "common/fat.h"

/* Whether every chain reachable from the root of fs (read through dev) ends properly, uses only
 * clusters no other chain uses, and holds its file's size (what mtools needs to be safe). fat:
 * fs's active FAT (fs->fat_bytes) where the caller holds it already, else NULL (read here).
 * Returns 0, AS_ECORRUPT with problem set to a sentence naming the path and cluster, or AS_EIO
 * when the FAT cannot be read. Lost clusters and a stale FSInfo are not problems. install/add
 * refuse on AS_ECORRUPT; check reports it. */
int esp_chain_problem(struct fat_fs *fs, struct blockdev *dev, const uint8_t *fat,
		      char *problem, size_t cap);
#endif
