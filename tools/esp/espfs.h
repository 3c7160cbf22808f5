/* SPDX-License-Identifier: BSD-2-Clause */
/* Changing files on the ESP without touching the disk until the plan is ready: the partition is
 * copied into a sparse temporary file, mtools works on that copy, and the sectors that differ
 * afterwards become ops of a write plan (journalled, printed by --dry-run, read back). Reading
 * goes through common/fat.c. */
#ifndef ANYSECTOR_TOOLS_ESPFS_H
#define ANYSECTOR_TOOLS_ESPFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/fat.h"
#include "tools/dev/hostdev.h"
#include "tools/plan/plan.h"

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
};

/* Copies the partition and checks it holds a FAT filesystem whose chains are whole. Returns 0 or
 * an exit code. */
int esp_open(struct esp_session *s, struct hostdev *h, uint64_t first_lba, uint64_t sectors,
	     unsigned number);
void esp_close(struct esp_session *s);
/* A session over the partition's mounted filesystem at dir (tools/esp/espdir.h): nothing is copied;
 * esp_diff then plans no sector of it and espdir_apply makes the changes. Returns 0 or an exit
 * code (dir not a readable directory). */
int esp_open_mounted(struct esp_session *s, struct hostdev *h, uint64_t first_lba,
		     uint64_t sectors, unsigned number, const char *dir);
/* A read-only session for looking only (list, check): fs when given (mounted by the caller),
 * else the partition's FAT read in place on the disk, without a copy. Returns 0 or an AS_*
 * code (AS_ECORRUPT: no valid FAT). */
int esp_view(struct esp_session *s, struct hostdev *h, uint64_t first_lba, uint64_t sectors,
	     unsigned number, struct fat_fs *fs);

/* Whether path exists on the copy (and is a directory). */
bool esp_exists(struct esp_session *s, const char *path, bool *is_dir);
/* Reads a whole file (at most CFG_FILE_MAX_BYTES) of the copy into a NUL-terminated malloc'd
 * buffer. Returns 0 or an AS_* code: AS_ENOENT when absent, AS_ETOOBIG when larger. A damaged
 * chain is described in d (the FAT reader's sentence, naming clusters; d may be NULL). */
int esp_read_file(struct esp_session *s, const char *path, char **buf, size_t *len,
		  struct diag *d);
/* Calls cb for each entry of the directory dir ("/loader/entries"). cb returns 0 to go on,
 * ESP_LIST_STOP to end the walk early, or an AS_* code; a nonzero return stops the walk and is
 * returned. Returns 0 or an AS_* code (AS_ENOENT: no such directory), or ESP_LIST_STOP. */
#define ESP_LIST_STOP 1 /* positive: never an AS_* code (util.h kind 2) */
typedef int (*esp_list_cb)(void *ctx, const char *name, bool is_dir, uint64_t size);
int esp_list(struct esp_session *s, const char *dir, esp_list_cb cb, void *ctx);
/* Deletes a file, or an empty directory, of the copy. Returns 0 or an exit code. */
int esp_delete(struct esp_session *s, const char *path);
int esp_rmdir(struct esp_session *s, const char *path);
/* Creates every missing directory of an absolute path ("/EFI/BOOT") on the copy. Returns 0 or an
 * exit code. */
int esp_mkdir_p(struct esp_session *s, const char *dir);
/* Copies a host file to path on the copy, replacing it. Returns 0 or an exit code. */
int esp_put(struct esp_session *s, const char *src, const char *dst);
/* Whether every chain reachable from the root of fs (read through dev) ends properly, uses only
 * clusters no other chain uses, and holds its file's size (what mtools needs to be safe).
 * Returns 0, AS_ECORRUPT with problem set to a sentence naming the path and cluster, or AS_EIO
 * when the FAT cannot be read. Lost clusters and a stale FSInfo are not problems. install/add
 * refuse on AS_ECORRUPT; check reports it. */
int esp_chain_problem(struct fat_fs *fs, struct blockdev *dev, char *problem, size_t cap);
/* Adds one op per run of sectors that differ between the copy and the disk, in the order that
 * keeps every prefix a valid filesystem (espfs.c). Returns 0 or an exit code. */
int esp_diff(struct esp_session *s, struct plan *p, const char *what);

#endif
