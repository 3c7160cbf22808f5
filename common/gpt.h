/* SPDX-License-Identifier: BSD-2-Clause */
/* GPT: decode, full validation, backup fallback, and building primary + backup for any sector
 * size (UEFI spec 2.x ch. 5; field facts in docs/FIRMWARE.md "GPT"). */
#ifndef ANYSECTOR_GPT_H
#define ANYSECTOR_GPT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/blockdev.h"
#include "common/diag.h"
#include "common/guid.h"

#define GPT_SIGNATURE 0x5452415020494645ULL /* "EFI PART" read little-endian */
#define GPT_REVISION 0x00010000u
#define GPT_HEADER_SIZE 92u                 /* bytes we write; readers accept 92..LSS */
#define GPT_ENTRY_SIZE 128u                 /* bytes we write; readers accept 128 * 2^n */
#define GPT_MIN_ARRAY_BYTES 16384u          /* the spec's minimum reserved array size */
#define GPT_DEFAULT_ENTRIES 128u
#define GPT_NAME_UNITS 36                   /* UTF-16LE code units in an entry name */
#define GPT_MAX_PARTS 128                   /* used entries we keep in memory */
#define GPT_MAX_ENTRY_SIZE 4096u            /* larger entry sizes are refused as unsupported */
#define GPT_MAX_ARRAY_BYTES (4u << 20)      /* larger arrays are refused as unsupported: reading
					       one would take ages in firmware */

#define GPT_ATTR_REQUIRED (1ULL << 0)
#define GPT_ATTR_NO_BLOCK_IO (1ULL << 1)
#define GPT_ATTR_LEGACY_BIOS_BOOTABLE (1ULL << 2)

struct gpt_header {
	uint64_t signature;
	uint32_t revision;
	uint32_t header_size;
	uint32_t header_crc;
	uint32_t reserved;
	uint64_t my_lba;
	uint64_t alternate_lba;
	uint64_t first_usable;
	uint64_t last_usable;
	struct guid disk_guid;
	uint64_t entries_lba;
	uint32_t num_entries;
	uint32_t entry_size;
	uint32_t entries_crc;
};

struct gpt_entry {
	struct guid type;
	struct guid unique;
	uint64_t first_lba;
	uint64_t last_lba;    /* inclusive */
	uint64_t attributes;
	uint16_t name[GPT_NAME_UNITS];
};

/* Field-level decode/encode of the 92-byte header and a 128-byte entry (no validation). */
void gpt_header_decode(const uint8_t *raw, struct gpt_header *h);
void gpt_header_encode(const struct gpt_header *h, uint8_t raw[GPT_HEADER_SIZE]);
/* True when raw (one sector of lss bytes, read from `lba`) holds a GPT header whose signature,
 * size, CRC and MyLBA are right: a GPT is there, valid or not beyond that. */
bool gpt_header_valid_raw(const uint8_t *raw, uint32_t lss, uint64_t lba);
/* CRC32 of the first header_size bytes of raw with the CRC field taken as zero. */
uint32_t gpt_header_crc(const uint8_t *raw, uint32_t header_size);
void gpt_entry_decode(const uint8_t raw[GPT_ENTRY_SIZE], struct gpt_entry *e);
void gpt_entry_encode(const struct gpt_entry *e, uint8_t raw[GPT_ENTRY_SIZE]);
bool gpt_entry_used(const struct gpt_entry *e);

/* ASCII <-> entry name (non-ASCII code units read back as '?'). */
void gpt_name_set(struct gpt_entry *e, const char *ascii);
void gpt_name_get(const struct gpt_entry *e, char out[GPT_NAME_UNITS + 1]);

/* Sectors the entry array occupies / reserves: at least GPT_MIN_ARRAY_BYTES. lss is a power of
 * two. */
uint64_t gpt_array_sectors(uint32_t lss, uint32_t num_entries, uint32_t entry_size);
/* The spec's layout for a disk of `sectors` sectors: FirstUsable = 2 + array, LastUsable =
 * N - 2 - array, backup header at N - 1, backup array at N - 1 - array. */
void gpt_default_layout(uint32_t lss, uint64_t sectors, uint32_t num_entries, uint32_t entry_size,
			uint64_t *first_usable, uint64_t *last_usable);

struct gpt_part {
	unsigned number;      /* 1-based entry index in the array */
	struct gpt_entry e;
};

struct gpt {
	struct gpt_header hdr;   /* the header in use (the backup's when the primary was bad) */
	bool primary_valid;
	bool backup_valid;       /* only known when the backup was examined (see gpt_read) */
	bool used_backup;
	unsigned count;          /* used entries, in array order */
	struct gpt_part parts[GPT_MAX_PARTS];
};

/* Validates one header at `lba` and its entry array. Every rule has its own diag code and a
 * sentence naming the value and the limit:
 *   gpt.signature       no "EFI PART" (or lba past the disk)              -> AS_ENOENT
 *   gpt.header_size     HeaderSize outside 92..LSS
 *   gpt.header_crc      header CRC32 mismatch
 *   gpt.revision        not 0x00010000 (a newer 1.x is only a warning)    -> AS_EUNSUPP
 *   gpt.reserved        reserved field not zero (warning)
 *   gpt.my_lba          MyLBA != lba
 *   gpt.alternate_lba   primary: outside 2..last LBA (not the last LBA: warning, the disk
 *                       grew); backup: not 1
 *   gpt.usable_range    FirstUsable > LastUsable, past the disk, or covering LBA 0 or a header
 *   gpt.entry_size      not 128*2^n (> GPT_MAX_ENTRY_SIZE: AS_EUNSUPP)
 *   gpt.array_size      count*size overflows 32 bits (> GPT_MAX_ARRAY_BYTES: AS_EUNSUPP)
 *   gpt.array_location  array not inside the disk, over a header, or over the usable range
 *   gpt.array_crc       array CRC32 mismatch
 *   gpt.too_many        more than GPT_MAX_PARTS used entries                 -> AS_EUNSUPP
 *   gpt.entry_order     a used entry with first > last
 *   gpt.entry_range     a used entry outside [FirstUsable, LastUsable]
 *   gpt.overlap         two used entries overlapping
 *   gpt.io              a read failed (the driver's code is returned)
 * Anything else invalid returns AS_ECORRUPT. The header is examined in dev->scratch and the
 * array streamed through it a sector at a time (no array-sized buffer; small stack). Fills out
 * (when non-NULL) on success, with used_backup = (lba != 1). With out NULL the entry rules are
 * checked by re-reading entries (slower; meant for host tools). */
int gpt_read_at(struct blockdev *dev, uint64_t lba, struct gpt *out, struct diag *d);

/* The primary at LBA 1; when it is invalid, says why and which backup it uses, then tries the
 * backup at the primary's AlternateLBA when that was readable (header CRC good), else at the last
 * LBA. When the primary is valid the backup is also checked: a bad or inconsistent backup is a
 * warning. Returns 0 (out->used_backup tells which), AS_ENOENT (no GPT at all), AS_ECORRUPT
 * (both bad). The per-rule reports of a header that is not used arrive as warnings (a missing
 * signature as info); then:
 *   gpt.using_backup    (warning) "primary GPT header at LBA 1 is invalid (<why>); using the
 *                       backup GPT header at LBA <n>"
 *   gpt.backup_bad      (warning) the primary is used, the backup is invalid (<why>)
 *   gpt.backup_mismatch (warning) both valid but the backup disagrees with the primary
 *   gpt.invalid         (error) both invalid, naming both LBAs and reasons
 *   gpt.none            (info) no signature in either place */
int gpt_read(struct blockdev *dev, struct gpt *out, struct diag *d);

/* Writes a new GPT: entries[0..n) into the first n slots of a num_entries x GPT_ENTRY_SIZE array
 * (num_entries 0 = GPT_DEFAULT_ENTRIES), FirstUsable/LastUsable 0 = the default layout. Validates
 * what it writes (entries inside the usable range, no overlaps: gpt.entry_range, gpt.entry_order,
 * gpt.overlap, gpt.usable_range -> AS_EINVAL; gpt.disk_too_small -> AS_ENOSPC), then writes the
 * backup array, the backup header, the primary array and the primary header, in that order,
 * assembling each sector in dev->scratch. Does not touch LBA 0 (see mbr_build_protective). */
int gpt_write(struct blockdev *dev, const struct guid *disk_guid, const struct gpt_entry *entries,
	      unsigned n, uint32_t num_entries, uint64_t first_usable, uint64_t last_usable,
	      struct diag *d);

/* Where gpt_write_placed puts a GPT's parts, in the device's LBAs; 0 in a field means the
 * spec's default (128 entries, the primary array at LBA 2, the backup array just below the
 * backup header, FirstUsable/LastUsable just inside the arrays). A dual GPT (tools/disk/dual.h)
 * moves the arrays of one size out of the other's way. */
struct gpt_place {
	uint32_t num_entries;
	uint64_t primary_array;
	uint64_t backup_array;
	uint64_t first_usable;
	uint64_t last_usable;
};

/* gpt_write with the arrays and the usable range placed explicitly. Besides gpt_write's
 * checks: each array inside LBA 2..last-1, the two arrays apart (gpt.array_location), the usable
 * range off both headers and both arrays (gpt.usable_range) -> AS_EINVAL. */
int gpt_write_placed(struct blockdev *dev, const struct guid *disk_guid,
		     const struct gpt_entry *entries, unsigned n, const struct gpt_place *place,
		     struct diag *d);

#endif
