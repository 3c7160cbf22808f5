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
#include "tools/esp/esp_session.h"
#include "tools/plan/plan.h"


/* Copies the partition (its FAT metadata and directories: tools/esp/esp_sparse.h) and checks it
 * holds a FAT filesystem whose chains are whole. new_bytes: the size of the files the change
 * will copy onto it; first TMPDIR must have room for the copy and those (else one sentence
 * naming TMPDIR and the size, esp.temp_space). Returns 0 or an exit code. */
int esp_open(struct esp_session *s, struct hostdev *h, uint64_t first_lba, uint64_t sectors,
	     unsigned number, uint64_t new_bytes);
/* The same with every byte copied, never sparse (tools/esp/esp_sparse.h): a change in two steps
 * (esp_fork, esp_diff_from) compares two copies. Returns 0 or an exit code. */
int esp_open_whole(struct esp_session *s, struct hostdev *h, uint64_t first_lba,
		   uint64_t sectors, unsigned number, uint64_t new_bytes);
void esp_close(struct esp_session *s);
/* A second session over the same partition whose copy starts as s's copy (a whole one) is now:
 * the state the first step of a change in two steps reaches (esp_diff_from). Returns 0 or an
 * exit code. */
int esp_fork(struct esp_session *s, struct esp_session *out);
/* Beside anysector.cfg on a mounted boot partition: the lock for writers that reach the ESP
 * through its filesystem. A change through the mount holds it exclusively (made when missing,
 * kept afterwards), a reader shared (when it exists), inside the disk's own lock. */
#define ESP_LOCK_FILE "anysector.lock"

/* A session over the partition's mounted filesystem at dir (tools/esp/espdir.h): nothing is copied;
 * esp_diff then plans no sector of it and espdir_apply makes the changes. Takes ESP_LOCK_FILE's
 * lock first (exclusive when h is writable). Returns 0 or an exit code (dir not a readable
 * directory, the lock not had). */
int esp_open_mounted(struct esp_session *s, struct hostdev *h, uint64_t first_lba,
		     uint64_t sectors, unsigned number, const char *dir);
/* Deletes a file, or an empty directory, of the copy. Returns 0 or an exit code. */
int esp_delete(struct esp_session *s, const char *path);
int esp_rmdir(struct esp_session *s, const char *path);
/* Renames the file from to the name to, which must not exist (the caller checks), in the same
 * directory: through a mount by rename(2) (its clusters untouched); on the copy as a new file
 * of that name with from's bytes, then from deleted (the new clusters written first, as for
 * every new file). Returns 0 or an exit code. */
int esp_rename(struct esp_session *s, const char *from, const char *to);
/* Creates every missing directory of an absolute path ("/EFI/BOOT") on the copy. Returns 0 or an
 * exit code. */
int esp_mkdir_p(struct esp_session *s, const char *dir);
/* Copies a host file to path on the copy, replacing it. Returns 0 or an exit code. */
int esp_put(struct esp_session *s, const char *src, const char *dst);
/* esp_put's two halves for a file that exists, so that several files replace others without a
 * cluster one of them frees being taken by the next (tools/ops/lockcfg.c): esp_stage copies src
 * under a free temporary name in dst's directory (into tmp[cap]), esp_unstage deletes dst and
 * renames tmp to it. A copy only (not mounted). Each returns 0 or an exit code. */
int esp_stage(struct esp_session *s, const char *src, const char *dst, char *tmp, size_t cap);
int esp_unstage(struct esp_session *s, const char *tmp, const char *dst);
/* The same for a file whose contents are text. Returns 0 or an exit code. */
int esp_put_text(struct esp_session *s, const char *text, const char *dst);
/* Adds one op per run of sectors that differ between the copy and the disk, in the order that
 * keeps every prefix a valid filesystem (espfs.c). Returns 0 or an exit code. */
int esp_diff(struct esp_session *s, struct plan *p, const char *what);
/* The same from the state of another copy of the same partition (from), as if the disk held
 * it: the second half of a change made in two steps, each of whose prefixes is a valid
 * filesystem (tools/ops/txn.c: the files that switch first). Returns 0 or an exit code. */
int esp_diff_from(struct esp_session *s, struct esp_session *from, struct plan *p,
		  const char *what);

#endif
