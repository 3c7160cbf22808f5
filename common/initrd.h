/* SPDX-License-Identifier: BSD-2-Clause */
/* Several initrds handed to a kernel as one block, as both loaders do it: each file starts at a
 * multiple of INITRD_JOIN_ALIGN (the Linux initramfs unpacker finds the next cpio header only at
 * a 4-byte boundary) with zeros between. The loaders only choose where the block goes and how a
 * read failure is named. */
#ifndef ANYSECTOR_INITRD_H
#define ANYSECTOR_INITRD_H

#include <stdint.h>

#include "common/config.h"
#include "common/fat.h"

#define INITRD_JOIN_ALIGN 4u

struct initrd_join {
	struct fat_file f[CFG_MAX_INITRDS];
	uint64_t off[CFG_MAX_INITRDS];    /* where each file starts in the block */
	uint64_t total;                   /* bytes in the block (0: no initrd) */
};

/* Opens every initrd of e on fs and places them. A file that is missing or is a directory is
 * one sentence naming the entry and the file (code "initrd.open"). */
int initrd_join_open(struct fat_fs *fs, const struct cfg_entry *e, struct initrd_join *j,
		     struct diag *d);

/* Reads one whole file into dst; reports its own failure (each loader names the file and the
 * disk LBA in its own words). */
typedef int (*initrd_read_fn)(void *ctx, const char *path, const struct fat_file *f, void *dst);

/* Fills dst[0 .. j->total): each file at its offset, zeros between. */
int initrd_join_read(const struct initrd_join *j, const struct cfg_entry *e, uint8_t *dst,
		     initrd_read_fn read, void *ctx);

/* Compares each pinned initrd as it lies in dst (filled by initrd_join_read) with its pin
 * (common/pin.h): 0, or AS_EDENIED after the mismatch's sentence. */
int initrd_join_pins(const struct initrd_join *j, const struct cfg_entry *e, const uint8_t *dst,
		     struct diag *d);

#endif
