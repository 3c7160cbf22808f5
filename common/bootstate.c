/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/bootstate.h"

#include "common/blockdev.h"
#include "common/bootinfo.h"
#include "common/crc32.h"
#include "common/errors.h"
#include "common/mem.h"
#include "common/str.h"

static uint32_t copy_crc(const uint8_t *copy)
{
	static const uint8_t zero[4];
	uint32_t c = crc32_update(0, copy, BSTATE_CRC_OFF);
	c = crc32_update(c, zero, 4);
	return crc32_update(c, copy + BSTATE_CRC_OFF + 4, BSTATE_COPY_BYTES - BSTATE_CRC_OFF - 4);
}

/* The offset of the end marker (or BSTATE_COPY_BYTES), 0 when a record is malformed. */
static unsigned records_end(const uint8_t *copy)
{
	unsigned at = BSTATE_RECORDS_OFF;

	while (at < BSTATE_COPY_BYTES && copy[at] != BSTATE_END) {
		if (copy[at] > BSTATE_BOOTED || !copy[at + 1] ||
		    BSTATE_COPY_BYTES - at < BSTATE_REC_HEAD + copy[at + 1])
			return 0;
		at += BSTATE_REC_HEAD + copy[at + 1];
	}
	return at;
}

bool bstate_valid(const uint8_t *copy)
{
	return !memcmp(copy, BSTATE_MAGIC, 8) && le32_load(copy + BSTATE_VERSION_OFF) ==
	       BSTATE_VERSION && le32_load(copy + BSTATE_SIZE_OFF) == BSTATE_COPY_BYTES &&
	       le32_load(copy + BSTATE_CRC_OFF) == copy_crc(copy) && records_end(copy);
}

int bstate_pick(const uint8_t *copy0, const uint8_t *copy1)
{
	bool v0 = bstate_valid(copy0), v1 = bstate_valid(copy1);

	if (v0 && v1)
		return bstate_seq(copy1) > bstate_seq(copy0);
	return v0 ? 0 : v1 ? 1 : -1;
}

void bstate_seal(uint8_t *copy, uint64_t seq)
{
	le64_store(copy + BSTATE_SEQ_OFF, seq);
	le32_store(copy + BSTATE_CRC_OFF, copy_crc(copy));
}

void bstate_init(uint8_t *copy, uint64_t seq)
{
	memset(copy, 0, BSTATE_COPY_BYTES);
	memcpy(copy, BSTATE_MAGIC, 8);
	le32_store(copy + BSTATE_VERSION_OFF, BSTATE_VERSION);
	le32_store(copy + BSTATE_SIZE_OFF, BSTATE_COPY_BYTES);
	bstate_seal(copy, seq);
}

uint8_t *bstate_next(uint8_t *copy, uint8_t *rec)
{
	uint8_t *at = rec ? rec + BSTATE_REC_HEAD + rec[1] : copy + BSTATE_RECORDS_OFF;
	return at < copy + BSTATE_COPY_BYTES && *at != BSTATE_END ? at : 0;
}

/* Whether rec's name is name, without ASCII case. */
static bool name_is(const uint8_t *rec, const char *name)
{
	unsigned n = rec[1];

	for (unsigned i = 0; i < n; i++)
		if (!name[i] || chr_lower((char)rec[BSTATE_REC_HEAD + i]) != chr_lower(name[i]))
			return false;
	return !name[n];
}

uint8_t *bstate_find(uint8_t *copy, unsigned type, const char *name)
{
	for (uint8_t *r = bstate_next(copy, 0); r; r = bstate_next(copy, r))
		if (r[0] == type && (!name || name_is(r, name)))
			return r;
	return 0;
}

bool bstate_name(const uint8_t *rec, char *out, unsigned cap)
{
	return str_copy_n(out, cap, (const char *)rec + BSTATE_REC_HEAD, rec[1]);
}

void bstate_remove(uint8_t *copy, uint8_t *rec)
{
	unsigned len = BSTATE_REC_HEAD + rec[1];
	uint8_t *end = copy + BSTATE_COPY_BYTES;

	memmove(rec, rec + len, (size_t)(end - rec - len));
	memset(end - len, 0, len);
}

int bstate_set(uint8_t *copy, unsigned type, const char *name, uint8_t a, uint8_t b)
{
	size_t n = str_len(name);
	uint8_t *old = bstate_find(copy, type, type == BSTATE_TRIES ? name : 0);
	unsigned end = records_end(copy), freed = old ? BSTATE_REC_HEAD + old[1] : 0;

	if (!n || n > BSTATE_NAME_MAX)
		return AS_EINVAL;
	if (!end)
		return AS_ECORRUPT;
	if (BSTATE_COPY_BYTES - end + freed < BSTATE_REC_HEAD + n)
		return AS_ENOSPC;
	if (old) {
		bstate_remove(copy, old);
		end -= freed;
	}
	uint8_t *r = copy + end;
	r[0] = (uint8_t)type;
	r[1] = (uint8_t)n;
	r[2] = a;
	r[3] = b;
	memcpy(r + BSTATE_REC_HEAD, name, n);
	return 0;
}

int bstate_load(struct bstate_io *s, struct blockdev *disk, uint64_t offset)
{
	uint32_t ss = disk->sector_size;
	int rc;

	s->disk = 0;
	s->live = -1;
	s->lba = offset / ss;
	s->sectors = BSTATE_COPY_BYTES / ss;
	if (offset % ss || BSTATE_COPY_BYTES % ss)
		return AS_ERANGE;
	s->disk = disk;
	if ((rc = bdev_read(disk, s->lba, 2ull * s->sectors, s->copy)))
		return rc;
	s->live = bstate_pick(s->copy[0], s->copy[1]);
	return 0;
}

uint8_t *bstate_begin(struct bstate_io *s)
{
	uint8_t *next = s->copy[s->live == 0];

	if (s->live < 0)
		bstate_init(next, 0);
	else
		memcpy(next, s->copy[s->live], BSTATE_COPY_BYTES);
	return next;
}

unsigned bstate_seal_next(struct bstate_io *s)
{
	unsigned k = s->live == 0;

	bstate_seal(s->copy[k], s->live < 0 ? 1 : bstate_seq(s->copy[s->live]) + 1);
	return k;
}

int bstate_commit(struct bstate_io *s)
{
	unsigned k = bstate_seal_next(s);
	int rc;

	if ((rc = bdev_write(s->disk, s->lba + (uint64_t)k * s->sectors, s->sectors, s->copy[k])))
		return rc;
	s->live = (int)k;
	return 0;
}

int bstate_locate(struct blockdev *disk, uint8_t *buf, uint32_t cap, uint64_t *offset)
{
	uint32_t ss = disk->sector_size;
	int rc;

	*offset = 0;
	if (ss > cap || (rc = bdev_read(disk, 0, 1, buf)))
		return ss > cap ? AS_EINVAL : rc;
	if (memcmp(buf + STAGE1_MAGIC_OFF, STAGE1_MAGIC, 4))
		return AS_ENOENT;
	uint64_t at = le64_load(buf + STAGE1_S2_OFFSET_OFF);
	uint32_t len = le32_load(buf + STAGE1_S2_LENGTH_OFF);
	if (len < STAGE2_HDR_SIZE || len > cap || at % ss)
		return AS_ENOENT;
	if ((rc = bdev_read_bytes(disk, at, buf, len)))
		return rc;
	if (!stage2_image_valid(buf, len))
		return AS_ENOENT;
	*offset = le32_load(buf + STAGE2_STATE_OFF);
	return 0;
}
