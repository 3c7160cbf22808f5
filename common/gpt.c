/* SPDX-License-Identifier: BSD-2-Clause */
/* GPT header and entry codecs, names, and the spec's default layout (docs/FIRMWARE.md "GPT").
 * Validation lives in gpt_read.c, writing in gpt_write.c. */
#include "common/gpt.h"

#include "common/crc32.h"
#include "common/le.h"
#include "common/mem.h"

/* Header field offsets (UEFI spec table 5-5). */
enum {
	H_SIGNATURE = 0,
	H_REVISION = 8,
	H_SIZE = 12,
	H_CRC = 16,
	H_RESERVED = 20,
	H_MY_LBA = 24,
	H_ALT_LBA = 32,
	H_FIRST_USABLE = 40,
	H_LAST_USABLE = 48,
	H_DISK_GUID = 56,
	H_ENTRIES_LBA = 72,
	H_NUM_ENTRIES = 80,
	H_ENTRY_SIZE = 84,
	H_ENTRIES_CRC = 88,
};

/* Entry field offsets (table 5-6). */
enum {
	E_TYPE = 0,
	E_UNIQUE = 16,
	E_FIRST = 32,
	E_LAST = 40,
	E_ATTR = 48,
	E_NAME = 56,
};

void gpt_header_decode(const uint8_t *raw, struct gpt_header *h)
{
	h->signature = le64_load(raw + H_SIGNATURE);
	h->revision = le32_load(raw + H_REVISION);
	h->header_size = le32_load(raw + H_SIZE);
	h->header_crc = le32_load(raw + H_CRC);
	h->reserved = le32_load(raw + H_RESERVED);
	h->my_lba = le64_load(raw + H_MY_LBA);
	h->alternate_lba = le64_load(raw + H_ALT_LBA);
	h->first_usable = le64_load(raw + H_FIRST_USABLE);
	h->last_usable = le64_load(raw + H_LAST_USABLE);
	memcpy(h->disk_guid.b, raw + H_DISK_GUID, 16);
	h->entries_lba = le64_load(raw + H_ENTRIES_LBA);
	h->num_entries = le32_load(raw + H_NUM_ENTRIES);
	h->entry_size = le32_load(raw + H_ENTRY_SIZE);
	h->entries_crc = le32_load(raw + H_ENTRIES_CRC);
}

void gpt_header_encode(const struct gpt_header *h, uint8_t raw[GPT_HEADER_SIZE])
{
	le64_store(raw + H_SIGNATURE, h->signature);
	le32_store(raw + H_REVISION, h->revision);
	le32_store(raw + H_SIZE, h->header_size);
	le32_store(raw + H_CRC, h->header_crc);
	le32_store(raw + H_RESERVED, h->reserved);
	le64_store(raw + H_MY_LBA, h->my_lba);
	le64_store(raw + H_ALT_LBA, h->alternate_lba);
	le64_store(raw + H_FIRST_USABLE, h->first_usable);
	le64_store(raw + H_LAST_USABLE, h->last_usable);
	memcpy(raw + H_DISK_GUID, h->disk_guid.b, 16);
	le64_store(raw + H_ENTRIES_LBA, h->entries_lba);
	le32_store(raw + H_NUM_ENTRIES, h->num_entries);
	le32_store(raw + H_ENTRY_SIZE, h->entry_size);
	le32_store(raw + H_ENTRIES_CRC, h->entries_crc);
}

uint32_t gpt_header_crc(const uint8_t *raw, uint32_t header_size)
{
	static const uint8_t zero[4];
	uint32_t crc;

	if (header_size <= H_CRC)
		return crc32(raw, header_size);
	crc = crc32_update(0, raw, H_CRC);
	crc = crc32_update(crc, zero, header_size < H_RESERVED ? header_size - H_CRC : 4);
	if (header_size > H_RESERVED)
		crc = crc32_update(crc, raw + H_RESERVED, header_size - H_RESERVED);
	return crc;
}

bool gpt_header_valid_raw(const uint8_t *raw, uint32_t lss, uint64_t lba)
{
	struct gpt_header h;

	gpt_header_decode(raw, &h);
	if (h.signature != GPT_SIGNATURE || h.header_size < GPT_HEADER_SIZE || h.header_size > lss)
		return false;
	return gpt_header_crc(raw, h.header_size) == h.header_crc && h.my_lba == lba;
}

void gpt_entry_decode(const uint8_t raw[GPT_ENTRY_SIZE], struct gpt_entry *e)
{
	memcpy(e->type.b, raw + E_TYPE, 16);
	memcpy(e->unique.b, raw + E_UNIQUE, 16);
	e->first_lba = le64_load(raw + E_FIRST);
	e->last_lba = le64_load(raw + E_LAST);
	e->attributes = le64_load(raw + E_ATTR);
	for (unsigned i = 0; i < GPT_NAME_UNITS; i++)
		e->name[i] = le16_load(raw + E_NAME + 2 * i);
}

void gpt_entry_encode(const struct gpt_entry *e, uint8_t raw[GPT_ENTRY_SIZE])
{
	memcpy(raw + E_TYPE, e->type.b, 16);
	memcpy(raw + E_UNIQUE, e->unique.b, 16);
	le64_store(raw + E_FIRST, e->first_lba);
	le64_store(raw + E_LAST, e->last_lba);
	le64_store(raw + E_ATTR, e->attributes);
	for (unsigned i = 0; i < GPT_NAME_UNITS; i++)
		le16_store(raw + E_NAME + 2 * i, e->name[i]);
}

bool gpt_entry_used(const struct gpt_entry *e)
{
	return !guid_is_zero(&e->type);
}

void gpt_name_set(struct gpt_entry *e, const char *ascii)
{
	unsigned i = 0;

	for (; ascii && ascii[i] && i < GPT_NAME_UNITS; i++)
		e->name[i] = (uint8_t)ascii[i];
	for (; i < GPT_NAME_UNITS; i++)
		e->name[i] = 0;
}

void gpt_name_get(const struct gpt_entry *e, char out[GPT_NAME_UNITS + 1])
{
	unsigned i = 0;

	for (; i < GPT_NAME_UNITS && e->name[i]; i++)
		out[i] = (e->name[i] >= 0x20 && e->name[i] < 0x7F) ? (char)e->name[i] : '?';
	out[i] = 0;
}

uint64_t gpt_array_sectors(uint32_t lss, uint32_t num_entries, uint32_t entry_size)
{
	uint64_t bytes = (uint64_t)num_entries * entry_size;

	if (bytes < GPT_MIN_ARRAY_BYTES)
		bytes = GPT_MIN_ARRAY_BYTES;
	/* Sector sizes are powers of two: a shift, so stage2 needs no 64-bit division helper. */
	return lss ? (bytes + lss - 1) >> __builtin_ctz(lss) : 0;
}

void gpt_default_layout(uint32_t lss, uint64_t sectors, uint32_t num_entries, uint32_t entry_size,
			uint64_t *first_usable, uint64_t *last_usable)
{
	uint64_t arr = gpt_array_sectors(lss, num_entries, entry_size);

	*first_usable = 2 + arr;
	/* A disk too small for both copies gets last < first, which every check refuses. */
	*last_usable = sectors >= 2 + arr ? sectors - 2 - arr : 0;
}
