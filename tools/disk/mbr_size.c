/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/disk/mbr_size.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/bootinfo.h"
#include "common/le.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"

unsigned fat_bps_at(int fd, uint64_t size, uint64_t off)
{
	uint8_t b[MBR_RECORD_SIZE];

	if (off > size || size - off < sizeof b || pread_full(fd, b, sizeof b, off))
		return 0;
	if ((b[0] != 0xEB && b[0] != 0xE9) || b[510] != 0x55 || b[511] != 0xAA)
		return 0;
	return le16_load(b + 11);
}

/* The sizes at which every used entry of m lies inside the image. */
static unsigned sizes_that_fit(uint64_t size, const struct mbr *m)
{
	unsigned fit = 0;

	for (uint32_t s = 512; s <= 4096; s <<= 1) {
		bool ok = size / s >= 2;
		for (unsigned i = 0; i < 4 && ok; i++)
			if (m->part[i].type && m->part[i].sectors)
				ok = (uint64_t)m->part[i].lba_first + m->part[i].sectors <= size / s;
		if (ok)
			fit |= s;
	}
	return fit;
}

/* Of the sizes in fit, those at which anysector's stage1 points at a valid stage2 that starts on
 * a sector boundary and ends before the first partition. */
static unsigned stage1_sizes(int fd, uint64_t size, const uint8_t *lba0, const struct mbr *m,
			     unsigned fit)
{
	if (memcmp(lba0 + STAGE1_MAGIC_OFF, STAGE1_MAGIC, 4))
		return 0;
	uint64_t off = le64_load(lba0 + STAGE1_S2_OFFSET_OFF);
	uint32_t len = le32_load(lba0 + STAGE1_S2_LENGTH_OFF);
	if (!len || len > STAGE2_MAX_SIZE || off > size || size - off < len)
		return 0;
	uint8_t *s2 = xmalloc(len);
	bool valid = !pread_full(fd, s2, len, off) && stage2_image_valid(s2, len);
	free(s2);
	if (!valid)
		return 0;
	uint64_t first = UINT64_MAX;
	for (unsigned i = 0; i < 4; i++)
		if (m->part[i].type && m->part[i].sectors && m->part[i].lba_first < first)
			first = m->part[i].lba_first;
	unsigned ok = 0;
	for (uint32_t s = 512; s <= 4096; s <<= 1)
		if ((fit & s) && off % s == 0 && off >= s && (first == UINT64_MAX ||
							      off + len <= first * s))
			ok |= s;
	return ok;
}

void mbr_image_sector_size(int fd, uint64_t size, const uint8_t *lba0, const struct mbr *m,
			   uint32_t *lss, unsigned *fits, char *how, size_t cap)
{
	unsigned fit = sizes_that_fit(size, m), fat = 0, boot = mbr_boot_part(m);

	*lss = 0;
	*fits = fit;
	for (uint32_t s = 512; s <= 4096 && boot; s <<= 1)
		if ((fit & s) && fat_bps_at(fd, size, (uint64_t)m->part[boot - 1].lba_first * s) == s)
			fat |= s;
	if (fat && is_pow2(fat)) {
		*lss = fat;
		snprintf(how, cap, "the FAT boot sector of MBR partition %u, which declares %u bytes "
			 "per sector", boot, fat);
		return;
	}
	unsigned ours = stage1_sizes(fd, size, lba0, m, fat ? fat : fit);
	if (ours && is_pow2(ours)) {
		*lss = ours;
		snprintf(how, cap, "anysector's stage1, whose stage2 lies on a %u-byte sector boundary "
			 "before the first partition only at that size", ours);
		return;
	}
	*fits = fat ? fat : ours ? ours : fit;
	if (is_pow2(*fits)) {
		/* a larger size puts a partition past the end of the image */
		*lss = *fits;
		snprintf(how, cap, "the MBR's partitions, which fit the image only at %u-byte sectors",
			 *lss);
	}
}
