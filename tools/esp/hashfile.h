/* SPDX-License-Identifier: BSD-2-Clause */
/* The SHA-256 of a whole file, read in pieces: a host file (add --pin) or a file on a FAT
 * (the ownership list, check verifying pins). */
#ifndef ANYSECTOR_TOOLS_HASHFILE_H
#define ANYSECTOR_TOOLS_HASHFILE_H

#include <stdint.h>

#include "common/fat.h"
#include "common/sha256.h"

/* With the host's fast SHA-256 (tools/base/sha256_fast.h). Returns 0 or AS_EIO (errno says
 * why). */
int hash_host_file(const char *path, uint8_t out[SHA256_BYTES]);
/* common/fat_sha256.h's hash through a buffer of its own, with the host's fast SHA-256
 * (tools/base/sha256_fast.h). Returns 0 or the AS_* code of the failing fat_read (reported
 * to d). */
int hash_fat_file(struct fat_fs *fs, const struct fat_file *f, uint8_t out[SHA256_BYTES],
		  struct diag *d);

#endif
