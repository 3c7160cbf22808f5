/* SPDX-License-Identifier: BSD-2-Clause */
/* The dual GPT's layout and writing it (tools/disk/dual.h has the byte map). */
#include "tools/disk/dual.h"

#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "tools/base/util.h"

static const uint32_t half_lss[DUAL_HALVES] = { DUAL_SMALL_LSS, DUAL_LARGE_LSS };

int dual_half_index(uint32_t lss)
{
	for (int k = 0; k < DUAL_HALVES; k++)
		if (half_lss[k] == lss)
			return k;
	return -1;
}

bool dual_geometry(uint64_t bytes, uint32_t num_entries, struct dual_geometry *g)
{
	uint64_t entries = num_entries ? num_entries : GPT_DEFAULT_ENTRIES;
	uint64_t arr = entries * GPT_ENTRY_SIZE;

	memset(g, 0, sizeof *g);
	if (arr < GPT_MIN_ARRAY_BYTES)
		arr = GPT_MIN_ARRAY_BYTES;
	arr = ALIGN_UP(arr, (uint64_t)DUAL_BLOCK);
	/* Front: protective MBR and the small header in block 0, the large header in block 1,
	 * then the large array (LBA 2 at 4 KiB) and the small one. Back: the mirror image. */
	uint64_t front = 2 * DUAL_BLOCK + 2 * arr, back = DUAL_BLOCK + 2 * arr;
	if (bytes % DUAL_BLOCK || arr > GPT_MAX_ARRAY_BYTES || bytes <= front + back)
		return false;
	g->bytes = bytes;
	g->array_bytes = arr;
	g->first_usable_byte = front;
	g->end_usable_byte = bytes - back;
	uint64_t small_array[2] = { 2 * DUAL_BLOCK + arr, bytes - back };
	uint64_t large_array[2] = { 2 * DUAL_BLOCK, bytes - DUAL_BLOCK - arr };
	for (int k = 0; k < DUAL_HALVES; k++) {
		uint32_t lss = half_lss[k];
		const uint64_t *a = k ? large_array : small_array;
		g->half[k] = (struct dual_half){
			.lss = lss,
			.sectors = bytes / lss,
			.place = {
				.num_entries = (uint32_t)entries,
				.primary_array = a[0] / lss,
				.backup_array = a[1] / lss,
				.first_usable = front / lss,
				.last_usable = g->end_usable_byte / lss - 1,
			},
		};
	}
	return true;
}

void dual_protective_mbr(struct mbr *m)
{
	/* Any size past 2^32 sectors gives the 0xFFFFFFFF size and FF FF FF end CHS. */
	mbr_build_protective(UINT64_MAX, m);
}

int dual_write_gpts(struct blockdev *view[DUAL_HALVES], const struct dual_geometry *g,
		    const struct guid *disk_guid, const struct gpt_entry *entries, unsigned n,
		    uint32_t unit, struct diag *d)
{
	struct gpt_entry *e = xcalloc(n ? n : 1, sizeof *e);
	int rc = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t first = entries[i].first_lba * unit, end = (entries[i].last_lba + 1) * unit;
		if (gpt_entry_used(&entries[i]) && (first % DUAL_BLOCK || end % DUAL_BLOCK)) {
			diag_error(d, "dual.unaligned",
				   "partition %u (bytes %llu..%llu) is not whole %u-byte blocks: it "
				   "cannot have the same byte range at both sector sizes",
				   i + 1, (unsigned long long)first, (unsigned long long)(end - 1),
				   DUAL_BLOCK);
			free(e);
			return AS_EINVAL;
		}
	}
	/* The large GPT first: writing its backup header clears the rest of the last 4 KiB block,
	 * where the small backup header goes. */
	for (int k = DUAL_HALVES - 1; k >= 0 && !rc; k--) {
		uint32_t lss = g->half[k].lss;
		for (unsigned i = 0; i < n; i++) {
			e[i] = entries[i];
			if (!gpt_entry_used(&entries[i]))
				continue;
			e[i].first_lba = entries[i].first_lba * unit / lss;
			e[i].last_lba = (entries[i].last_lba + 1) * unit / lss - 1;
		}
		if (view[k]->sector_size != lss || view[k]->sectors != g->half[k].sectors) {
			diag_error(d, "dual.args", "dual_write_gpts: view %d is not %u-byte sectors over "
				   "the whole disk", k, (unsigned)lss);
			rc = AS_EINVAL;
			break;
		}
		rc = gpt_write_placed(view[k], disk_guid, e, n, &g->half[k].place, d);
	}
	free(e);
	return rc;
}
