/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: the input is a mode byte and a disk image, read through the memory driver.
 * gpt_read and gpt_read_at must end in a verdict, never a crash, and what they accept must obey
 * the rules they promise. An accepted table is also written back with gpt_write onto a fresh
 * disk and read again.
 *
 * Mode byte: bits 0-1 the logical sector size 512 << n; bit 2 a small max_io (3 sectors) so
 * reads get split; bit 3 both headers' CRCs recomputed before reading, so mutations reach the
 * rules behind the CRC checks instead of dying at them. (An earlier version read every input in
 * all eight modes: eight times the CRC work per input, ~1,400 exec/s. The fuzzer flips the mode
 * bits itself, so each image still meets every sector size.) */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32.h"
#include "common/errors.h"
#include "common/gpt.h"
#include "common/memdisk.h"
#include "tests/fuzz/fuzz_diag.h"
#include "tests/fuzz/fuzz_disk.h"

/* What a successful read promises about its entries. */
static void check_accepted(const struct gpt *g, uint64_t sectors)
{
	const struct gpt_header *h = &g->hdr;
	if (g->count > GPT_MAX_PARTS || h->first_usable > h->last_usable || h->last_usable >= sectors)
		__builtin_trap();
	for (unsigned i = 0; i < g->count; i++) {
		const struct gpt_entry *a = &g->parts[i].e;
		if (!gpt_entry_used(a) || a->first_lba > a->last_lba || a->first_lba < h->first_usable ||
		    a->last_lba > h->last_usable || g->parts[i].number == 0 ||
		    g->parts[i].number > h->num_entries)
			__builtin_trap();
		for (unsigned j = 0; j < i; j++) {
			const struct gpt_entry *b = &g->parts[j].e;
			if (a->first_lba <= b->last_lba && b->first_lba <= a->last_lba)
				__builtin_trap();
			if (g->parts[j].number >= g->parts[i].number)
				__builtin_trap();
		}
	}
}

/* Writes the accepted entries to a new disk of the same geometry and reads them back. */
static void rewrite(const struct gpt *g, uint32_t lss, uint64_t sectors)
{
	static struct gpt again;
	static struct gpt_entry e[GPT_MAX_PARTS];
	uint8_t *img = calloc(sectors, lss);
	uint8_t scratch[4096];
	struct blockdev dev;
	struct memdisk md = { .data = img, .size = sectors * lss };

	if (!img || memdisk_init(&dev, &md, lss, lss, 0, 0, scratch))
		__builtin_trap();
	for (unsigned i = 0; i < g->count; i++)
		e[i] = g->parts[i].e;
	int rc = gpt_write(&dev, &g->hdr.disk_guid, e, g->count, 0, 0, 0, NULL);
	/* Entries from a smaller-array GPT can sit where our 16 KiB arrays go: refused is fine. */
	if (!rc) {
		if (gpt_read(&dev, &again, NULL) || again.count != g->count || again.used_backup)
			__builtin_trap();
		for (unsigned i = 0; i < g->count; i++)
			if (memcmp(&again.parts[i].e, &e[i], sizeof e[i]))
				__builtin_trap();
	} else if (rc != AS_EINVAL && rc != AS_ENOSPC) {
		__builtin_trap();
	}
	free(img);
}

/* Makes the header at lba (and its array, when it lies in the image) CRC-correct. */
static void reseal(uint8_t *img, uint64_t sectors, uint32_t lss, uint64_t lba)
{
	struct gpt_header h;
	uint8_t *raw = img + lba * lss;

	if (lba >= sectors)
		return;
	gpt_header_decode(raw, &h);
	uint64_t bytes = (uint64_t)h.num_entries * h.entry_size;
	if (h.entries_lba < sectors && bytes <= (sectors - h.entries_lba) * lss)
		h.entries_crc = crc32(img + h.entries_lba * lss, (size_t)bytes);
	gpt_header_encode(&h, raw);
	if (h.header_size > 20 && h.header_size <= lss) {
		h.header_crc = gpt_header_crc(raw, h.header_size);
		gpt_header_encode(&h, raw);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gpt g;
	struct diag d = { .emit = fuzz_emit };
	struct fuzz_disk fd;

	if (size < 2)
		return 0;
	uint32_t lss = 512u << (data[0] & 3);
	uint32_t max_io = data[0] & 4 ? 3 : 0;
	bool reseal_headers = data[0] & 8;
	fuzz_disk_open(&fd, data + 1, size - 1, lss, max_io);
	uint64_t sectors = fd.sectors;
	if (reseal_headers) {
		reseal(fd.md.data, sectors, lss, 1);
		reseal(fd.md.data, sectors, lss, sectors - 1);
	}
	int rc = gpt_read(&fd.dev, &g, &d);
	if (rc == 0) {
		check_accepted(&g, sectors);
		if (g.used_backup == g.primary_valid)
			__builtin_trap();
		rewrite(&g, lss, sectors);
	} else if (rc != AS_ENOENT && rc != AS_ECORRUPT && rc != AS_EUNSUPP) {
		__builtin_trap();
	}
	rc = gpt_read_at(&fd.dev, sectors - 1, NULL, &d);
	if (rc > 0)
		__builtin_trap();
	fuzz_disk_close(&fd);
	return 0;
}
