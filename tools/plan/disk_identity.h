/* SPDX-License-Identifier: BSD-2-Clause */
/* Which disk a backup belongs to, beyond its size: the disk's own name for itself (the GPT's
 * disk GUID, else the MBR's disk signature) and the contents right beside the sectors a backup
 * saves. restore compares both (tools/plan/journal.c). */
#ifndef ANYSECTOR_TOOLS_DISK_IDENTITY_H
#define ANYSECTOR_TOOLS_DISK_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/dev/hostdev.h"

enum disk_id_kind {
	DISK_ID_NONE = 0,     /* neither a GPT header nor an MBR */
	DISK_ID_GPT = 1,      /* id: the disk GUID as stored (16 bytes) */
	DISK_ID_MBR = 2,      /* id: the disk signature, bytes 0x1B8..0x1BB of LBA 0 */
};

struct disk_identity {
	enum disk_id_kind kind;
	uint8_t id[16];
	uint64_t lba;         /* the sector it was read from (the GPT header's, or 0) */
};

/* The disk's identity: the disk GUID of a GPT header with a valid CRC (the primary at LBA 1,
 * else the backup at the last LBA), else the signature of an MBR (0x55AA at byte 510), else
 * none. */
void disk_identity_read(struct hostdev *h, struct disk_identity *id);

/* "disk GUID 01234567-...", "MBR disk signature 0x1234ABCD" or "no GPT and no MBR". */
const char *disk_identity_text(const struct disk_identity *id, char *buf, size_t cap);

/* A range of sectors, [first, first + count). */
struct sector_span {
	uint64_t first, count;
};

/* CRC32 of the sectors right before and after span i of the n spans that lie on the disk and
 * in none of the spans (what an operation does not write): *has says whether there is such a
 * sector (*crc is then 0 when not). Returns 0 or an AS_* code from reading. */
int span_neighbours_crc(struct hostdev *h, const struct sector_span *s, unsigned n, unsigned i,
			uint32_t *crc, bool *has);

#endif
