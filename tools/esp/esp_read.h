/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading the boot partition through a session: its copy, a read-only view of the disk, or the
 * mounted filesystem with the changes recorded so far (tools/esp/espdir.h). Reading goes through
 * common/fat.c. Each function returns 0 or an AS_* code, or what it answers. */
#ifndef ANYSECTOR_TOOLS_ESP_READ_H
#define ANYSECTOR_TOOLS_ESP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/fat.h"
#include "common/sha256.h"
#include "tools/dev/hostdev.h"
#include "tools/esp/esp_session.h"

/* Every kind of session starts from this: partition number of h, [first_lba, +sectors). */
void esp_session_init(struct esp_session *s, struct hostdev *h, uint64_t first_lba,
		      uint64_t sectors, unsigned number);
/* Mounts the copy again after mtools changed it (nothing for a view). Returns 0 or an AS_*
 * code. */
int esp_remount(struct esp_session *s);

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
/* The same with another limit than CFG_FILE_MAX_BYTES (an EFI program). */
int esp_read_max(struct esp_session *s, const char *path, size_t max, char **buf, size_t *len,
		 struct diag *d);
/* The size of the file path. Returns 0 or an AS_* code (AS_ENOENT absent, AS_EISDIR). */
int esp_file_size(struct esp_session *s, const char *path, uint64_t *size);
/* Reads len bytes of the file path from byte off into buf (a unified kernel image's headers and
 * sections, without the whole file). Returns 0 or an AS_* code: AS_ENOENT absent, AS_ERANGE or
 * AS_EIO past its end. */
int esp_read_at(struct esp_session *s, const char *path, uint64_t off, void *buf, size_t len);
/* The SHA-256 of a whole file of the session (a mounted one with the changes recorded so far).
 * Returns 0 or an AS_* code (AS_ENOENT absent, AS_EISDIR a directory). */
int esp_sha256(struct esp_session *s, const char *path, uint8_t out[SHA256_BYTES]);
/* Calls cb for each entry of the directory dir ("/loader/entries"). cb returns 0 to go on,
 * ESP_LIST_STOP to end the walk early, or an AS_* code; a nonzero return stops the walk and is
 * returned. Returns 0 or an AS_* code (AS_ENOENT: no such directory), or ESP_LIST_STOP. */
int esp_list(struct esp_session *s, const char *dir, esp_list_cb cb, void *ctx);

#endif
