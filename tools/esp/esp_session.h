/* SPDX-License-Identifier: BSD-2-Clause */
/* A session on the boot partition (ESP): a copy of it for mtools (tools/esp/espfs.h), a read-only
 * view (tools/esp/esp_read.h), or the running system's mounted filesystem (tools/esp/espdir.h).
 * The one type those share, with the callback of a directory walk. */
#ifndef ANYSECTOR_TOOLS_ESP_SESSION_H
#define ANYSECTOR_TOOLS_ESP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "common/blockdev.h"
#include "common/fat.h"
#include "tools/dev/hostdev.h"

struct esp_session {
	struct hostdev *h;
	uint64_t first_lba, sectors;
	unsigned number;          /* partition number, for messages */
	char path[4096];          /* the temporary copy */
	struct hostdev img;       /* the copy as a block device */
	struct fat_fs *fs;        /* mounted copy (refreshed after every change) */
	bool open;
	bool view;                /* esp_view: read-only, fs is the caller's (or over the disk) */
	bool own_fs;
	struct blockdev part;     /* esp_view over the disk: the partition's window */
	bool mounted;             /* esp_open_mounted: the running system's mount (espdir.c) */
	char mount_dir[4096];
	struct dir_op *ops;       /* the changes recorded for it */
	unsigned nops, ops_cap;
	int lock;                 /* mounted: ESP_LOCK_FILE's lock (tools/dev/lock.h), or 0 */
	uint8_t *fat0;            /* the copy: the disk's active FAT when it was copied */
	uint64_t fat0_len;        /* (tools/esp/esp_fence.h) */
	bool fat0_borrowed;       /* fat0 is sparse->fat, freed with it */
	struct esp_sparse *sparse; /* the copy is sparse (tools/esp/esp_sparse.h), or NULL */
	const uint8_t *map;       /* the copy mapped read-only for its diff (espfs.c), or NULL */
	uint64_t map_len;
	const uint8_t *fats_map;  /* the copy's first bytes to the FATs' end, read-only */
	uint64_t fats_map_len;    /* (the fence of tools/esp/esp_fence.h), or NULL */
};

/* An esp_list callback returns 0 to go on, ESP_LIST_STOP to end the walk early, or an AS_* code.
 * ESP_LIST_STOP is positive and above every exit code (tools/base/exit_codes.h), so it is
 * neither an AS_* code nor an exit code. */
#define ESP_LIST_STOP 0x100
typedef int (*esp_list_cb)(void *ctx, const char *name, bool is_dir, uint64_t size);

#endif
