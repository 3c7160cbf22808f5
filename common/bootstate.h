/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot state block: what a loader must remember from one boot to the next without a
 * filesystem write (stage2 never writes FAT) and without EFI variables (BIOS has none): the
 * one-shot entry, each counted entry's tries, and which entry a loader last started with
 * counting or a one-shot, for `anysector bless` and `status`.
 *
 * The installer owns it: two copies of BSTATE_COPY_BYTES at the end of the stage2 region (the
 * BIOS boot partition or the MBR gap), each a whole aligned run of physical sectors, so no write
 * of it is a drive's read-modify-write. stage2's header records where (STAGE2_STATE_OFF,
 * common/bootinfo.h), so a loader follows LBA 0 -> stage2 -> state and never searches.
 *
 * One copy, little-endian (docs/DESIGN.md "The boot state block" has the byte map):
 *   0x00  8  "ANYSTATE"
 *   0x08  4  u32 format version (1)
 *   0x0C  4  u32 the copy's size in bytes (BSTATE_COPY_BYTES)
 *   0x10  8  u64 sequence number: the valid copy with the larger one holds the state
 *   0x18  4  u32 CRC32 of the whole copy with this field taken as zero
 *   0x1C  4  reserved, 0
 *   0x20     records, then a zero byte (or the copy's end); zeros to the end
 * A record: u8 type, u8 n (1..255), u8 a, u8 b, then the n bytes of an entry's name (no NUL).
 *   BSTATE_ONESHOT (at most one): boot this entry next time only; a = b = 0.
 *   BSTATE_TRIES (one per name): a = tries left, b = tries done (each at most 255).
 *   BSTATE_BOOTED (at most one): the entry a loader last started while counting it or as the
 *     one-shot; a = BSTATE_FW_BIOS or BSTATE_FW_UEFI, b = BSTATE_BOOTED_* flags.
 * Names compare without ASCII case, as the menu's do (cfg_find).
 *
 * A writer never writes the copy that holds the state: it writes the other one with the next
 * sequence number, so a write torn by a power cut leaves the state it was replacing whole. */
#ifndef ANYSECTOR_BOOTSTATE_H
#define ANYSECTOR_BOOTSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/le.h"

#define BSTATE_COPY_BYTES 4096u   /* a physical sector on 512e and 4Kn drives; 8 on 512n */
#define BSTATE_COPIES 2u
#define BSTATE_MAGIC "ANYSTATE"
#define BSTATE_VERSION 1u
#define BSTATE_VERSION_OFF 0x08
#define BSTATE_SIZE_OFF 0x0C
#define BSTATE_SEQ_OFF 0x10
#define BSTATE_CRC_OFF 0x18
#define BSTATE_RECORDS_OFF 0x20
#define BSTATE_REC_HEAD 4u
#define BSTATE_NAME_MAX 255u

enum bstate_type {
	BSTATE_END = 0,
	BSTATE_ONESHOT = 1,
	BSTATE_TRIES = 2,
	BSTATE_BOOTED = 3,
};

#define BSTATE_FW_BIOS 1u
#define BSTATE_FW_UEFI 2u
#define BSTATE_BOOTED_COUNTED 0x01u  /* its tries were counted down for this boot */
#define BSTATE_BOOTED_ONESHOT 0x02u  /* it was the one-shot */

/* Whether copy (BSTATE_COPY_BYTES) is a state of this format: magic, version, size, CRC, and
 * records that end inside it, each of a known type with a name of 1..255 bytes. */
bool bstate_valid(const uint8_t *copy);
/* Which of two copies holds the state: the valid one with the larger sequence number (copy 0
 * on a tie); -1 when neither is valid. */
int bstate_pick(const uint8_t *copy0, const uint8_t *copy1);
/* An empty state with sequence number seq, sealed. */
void bstate_init(uint8_t *copy, uint64_t seq);
/* Sets the sequence number and the CRC after records changed. */
void bstate_seal(uint8_t *copy, uint64_t seq);
static inline uint64_t bstate_seq(const uint8_t *copy)
{
	return le64_load(copy + BSTATE_SEQ_OFF);
}

/* The record of this type for name (name NULL: the first of this type), or NULL. copy must be
 * valid: the walk trusts bstate_valid's check. */
uint8_t *bstate_find(uint8_t *copy, unsigned type, const char *name);
/* The record after rec (NULL at the end): for walking every record. */
uint8_t *bstate_next(uint8_t *copy, uint8_t *rec);
/* The name of a record into out (cap >= 2), NUL-terminated; false when it is cut. */
bool bstate_name(const uint8_t *rec, char *out, unsigned cap);
/* Takes a record out; the records after it move up. */
void bstate_remove(uint8_t *copy, uint8_t *rec);
/* Sets the one record of type for name (ONESHOT and BOOTED: the one record of that type),
 * replacing what was there. AS_EINVAL for a name of 0 or more than 255 bytes, AS_ENOSPC when
 * the copy has no room (nothing changed then). Not sealed: bstate_seal when done. */
int bstate_set(uint8_t *copy, unsigned type, const char *name, uint8_t a, uint8_t b);

/* ---- a loader's copy of a disk's state block ---- */
struct blockdev;

struct bstate_io {
	struct blockdev *disk;               /* NULL: no block (nothing is written) */
	uint64_t lba;                        /* copy 0 (copy 1 follows it) */
	uint32_t sectors;                    /* of one copy */
	int live;                            /* the copy holding the state (bstate_pick), -1 none */
	uint8_t copy[BSTATE_COPIES][BSTATE_COPY_BYTES];
};

/* Reads both copies of the block at byte offset of disk. Returns 0, AS_ERANGE when they are
 * not whole sectors inside it (s->disk NULL then: never written), or the read's code (s->live
 * is then -1: no state; a change writes a new one). */
int bstate_load(struct bstate_io *s, struct blockdev *disk, uint64_t offset);
/* The copy a change goes to, holding the state as it is (an empty one when no copy is whole):
 * never the live copy. Change it, then bstate_commit. */
uint8_t *bstate_begin(struct bstate_io *s);
/* Seals the changed copy with the next sequence number; returns its index (the installer writes
 * it through a write plan; s->live is unchanged). */
unsigned bstate_seal_next(struct bstate_io *s);
/* bstate_seal_next, then the copy written (the block layer's write path, with its retries); on
 * success it is the live copy. Returns 0 or the write's code. */
int bstate_commit(struct bstate_io *s);

/* Where stage2's header says the state block is, for a loader that is not stage2 (BOOTX64.EFI):
 * LBA 0's stage1 patch block names stage2, which must be whole (magic, length, CRC); its
 * header's STAGE2_STATE_OFF. buf holds cap bytes (STAGE2_MAX_SIZE is enough for any stage2).
 * Returns 0 with *offset (0: none recorded), AS_ENOENT when LBA 0 or stage2 is not ours or not
 * whole, or a read's code. */
int bstate_locate(struct blockdev *disk, uint8_t *buf, uint32_t cap, uint64_t *offset);

#endif
