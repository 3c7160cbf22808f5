/* SPDX-License-Identifier: BSD-2-Clause */
/* The SHA-256 of a file on a FAT, read a piece at a time: how `anysector check` and
 * `anysector.efi check` hash a pinned file without holding it whole (common/pin.h). */
#ifndef ANYSECTOR_FAT_SHA256_H
#define ANYSECTOR_FAT_SHA256_H

#include <stdint.h>

#include "common/fat.h"
#include "common/sha256.h"

/* The hash of f's f->size bytes into out, read through buf chunk bytes at a time (any chunk
 * gives the same hash). Returns 0, AS_EINVAL for a chunk of 0, or the failing fat_read's code
 * (reported to d by the FAT layer); out is then not written. */
int fat_sha256(struct fat_fs *fs, const struct fat_file *f, void *buf, uint32_t chunk,
	       uint8_t out[SHA256_BYTES], struct diag *d);

#endif
