/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot partition while the running system has it mounted (Debian: /boot/efi): its files are
 * read and changed through the mounted filesystem, never as raw sectors under the kernel's vfat
 * driver. Changes are recorded while the plan is built (later reads see them), printed by
 * --dry-run, and applied by txn_commit after stage2 and before LBA 0: each new file is written
 * under a temporary name in its directory, fsync'd, renamed over the old one, and the directory
 * fsync'd; deletions and renames are each followed by an fsync of the directory. The functions are
 * esp_session's for a session opened by esp_open_mounted (tools/esp/espfs.c and esp_read.c
 * dispatch); writing is tools/esp/espdir_write.h. */
#ifndef ANYSECTOR_TOOLS_ESPDIR_H
#define ANYSECTOR_TOOLS_ESPDIR_H

#include <stdbool.h>
#include <stdio.h>

#include "common/fat.h"
#include "common/sha256.h"
#include "tools/esp/esp_session.h"

enum dir_op_kind { DIR_OP_MKDIR, DIR_OP_PUT, DIR_OP_DELETE, DIR_OP_RMDIR, DIR_OP_RENAME };

struct dir_op {
	enum dir_op_kind kind;
	char path[FAT_PATH_MAX + 32];   /* on the boot partition, '/'-separated */
	char staged[4096];              /* DIR_OP_PUT: our copy of the new contents;
					 * DIR_OP_RENAME: the host path of the file renamed */
	char from[FAT_PATH_MAX + 32];   /* DIR_OP_RENAME: its path before, gone after */
	uint64_t size;
};

/* Each returns what the esp_* function of the same name does (tools/esp/esp_read.h): 0 or an
 * AS_* code, or the answer. */
bool espdir_exists(struct esp_session *s, const char *path, bool *is_dir);
int espdir_read_file(struct esp_session *s, const char *path, size_t max, char **buf,
		     size_t *len);
int espdir_file_size(struct esp_session *s, const char *path, uint64_t *size);
int espdir_read_at(struct esp_session *s, const char *path, uint64_t off, void *buf, size_t len);
int espdir_sha256(struct esp_session *s, const char *path, uint8_t out[SHA256_BYTES]);
int espdir_list(struct esp_session *s, const char *dir, esp_list_cb cb, void *ctx);
/* Each records one change for espdir_apply (esp_mkdir_p walks the path). Returns 0. */
int espdir_mkdir(struct esp_session *s, const char *dir);
int espdir_delete(struct esp_session *s, const char *path);
int espdir_rmdir(struct esp_session *s, const char *path);
/* Records a change of path (replacing none before it): the op, zeroed but for kind and path. */
struct dir_op *espdir_record(struct esp_session *s, enum dir_op_kind kind, const char *path);
/* The host path of path on the boot partition, under the mount. */
void espdir_host_path(const struct esp_session *s, const char *path, char *out, size_t cap);
/* Deletes the staged copies and forgets the changes. */
/* Moves the last change recorded for path to the front, so it is applied first. */
void espdir_hoist(struct esp_session *s, const char *path);
void espdir_close(struct esp_session *s);

/* One line per recorded change ("through /boot/efi: ..."). */
void espdir_print(const struct esp_session *s, FILE *f);

#endif
