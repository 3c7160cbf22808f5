/* SPDX-License-Identifier: BSD-2-Clause */
/* The sparse copy of an unmounted ESP (issue 31): only what mtools and the tool read are copied
 * into the temporary file, the boot sector, reserved area, FATs and FAT12/16 root (everything
 * before cluster 2) and every directory cluster. The contents of files stay on the disk:
 *
 *   - reads of the copy through its block device (the tool's own FAT reader) take a cluster that
 *     is in use on the disk and not a directory from the disk, everything else from the copy;
 *   - mtools only reads the FATs and directories, and writes new data only into clusters that
 *     are free on the disk (the fence of esp_fence.h keeps it off clusters the change freed);
 *   - the diff (esp_diff) therefore compares only what was copied, and writes the clusters free
 *     on the disk that the new FAT puts in use whole, without reading what the disk holds there
 *     (the journal reads it once, for its backup); a file cluster in use on the disk, or a
 *     cluster free in both FATs, is never written.
 *
 * A layout this cannot follow exactly (a cluster smaller than the device's sector, a directory
 * tree the reader refuses) makes esp_sparse_build fail, and the caller copies the ESP whole. */
#ifndef ANYSECTOR_TOOLS_ESP_SPARSE_H
#define ANYSECTOR_TOOLS_ESP_SPARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/blockdev.h"
#include "tools/esp/esp_order.h"

struct esp_sparse {
	struct esp_geom g;
	uint8_t *fat;                  /* the disk's active FAT when copied (one copy) */
	uint8_t *dirs;                 /* bit per cluster: a directory cluster, copied */
	struct blockdev *disk;         /* the partition on the disk (a slice) */
	struct blockdev part;
	int (*read)(struct blockdev *, uint64_t, uint32_t, void *); /* the copy's own */
	uint64_t need;                 /* bytes the copy holds at most: metadata and directories */
	uint64_t copied;               /* bytes copied from the disk */
};

/* sp zeroed but for part. Mounts the partition on the disk (disk: a slice of it, usually
 * &sp->part), reads its active FAT and walks its directory tree, marking every directory
 * cluster; sp->need is then the bytes esp_sparse_copy will copy. Returns 0, or an AS_* code when
 * the sparse copy cannot be made (then sp holds nothing and the caller copies the whole ESP). */
int esp_sparse_build(struct esp_sparse *sp, struct blockdev *disk, uint32_t lss);

/* Copies what esp_sparse_build marked into fd (the partition's size, all holes); zero runs stay
 * holes. Returns 0, an AS_* code (reading the disk failed) or a positive errno value (writing fd
 * failed). */
int esp_sparse_copy(struct esp_sparse *sp, int fd);

/* What the diff does with a run of bytes (esp_sparse_run). */
enum esp_run_kind {
	ESP_RUN_COMPARE,   /* what the copy holds (metadata, directories): compared with the disk */
	ESP_RUN_SKIP,      /* stays as it is on the disk: neither read nor written */
	ESP_RUN_NEW,       /* new contents: free on the disk, in use in new_fat; written whole */
};

/* The end of the run of bytes from `at` (below end) that the diff treats alike, and *kind: skip
 * content that stays on the disk only (a cluster in use on the disk that is not a directory, or
 * the slack after the last cluster) and a data cluster free in both the disk's FAT and new_fat
 * (the copy's active FAT after the change); new contents: a data cluster free on the disk that
 * new_fat puts in use (its old bytes matter to the journal only); compare the rest. The data
 * area is walked a cluster at a time, the slack after it in one step. */
uint64_t esp_sparse_run(const struct esp_sparse *sp, const uint8_t *new_fat, uint64_t at,
			uint64_t end, enum esp_run_kind *kind);

/* Reads of the copy's block device: the clusters on the disk only come from the disk. Installed
 * over dev->read with sp in reach of dev (the caller's container). Returns 0 or an AS_* code
 * (a driver's read). */
int esp_sparse_read(const struct esp_sparse *sp, struct blockdev *dev, uint64_t lba,
		    uint32_t count, void *buf);

void esp_sparse_free(struct esp_sparse *sp);

#endif
