/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: the input is a disk image holding an MBR and maybe an EBR chain, read at 512 and
 * 4096-byte sectors. mbr_read must end (the walk is bounded), and what it accepts must obey its
 * promises: numbering, partitions inside the disk and below 2^32, logicals inside the extended
 * partition. Records and CHS must survive a decode/encode round trip. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/label.h"
#include "common/mbr.h"
#include "common/memdisk.h"
#include "tests/fuzz/fuzz_diag.h"
#include "tests/fuzz/fuzz_disk.h"

static void check_accepted(const struct mbr_table *t, uint64_t sectors)
{
	const struct mbr_part *ext = NULL;
	unsigned last_logical = 4;

	if (t->count > MBR_MAX_PARTS)
		__builtin_trap();
	for (unsigned i = 0; i < t->count; i++) {
		const struct mbr_part *p = &t->parts[i];
		uint64_t last = p->first_lba + p->sectors - 1;
		if (!p->sectors || p->first_lba == 0 || last > 0xFFFFFFFFull)
			__builtin_trap();
		if (p->type != MBR_TYPE_GPT_PROTECTIVE && last >= sectors)
			__builtin_trap();
		if (p->number <= 4) {
			if (p->table_lba != 0)
				__builtin_trap();
			if (mbr_type_is_extended(p->type)) {
				if (ext)
					__builtin_trap();
				ext = p;
			}
		} else {
			if (!ext || p->number != last_logical + 1)
				__builtin_trap();
			last_logical = p->number;
			if (p->first_lba < ext->first_lba || last > ext->first_lba + ext->sectors - 1 ||
			    p->table_lba >= p->first_lba)
				__builtin_trap();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t sizes[] = { 512, 4096 };
	static struct mbr_table t;
	struct diag d = { .emit = fuzz_emit };

	/* Pure codecs on the first record. */
	if (size >= MBR_RECORD_SIZE) {
		uint8_t rec[MBR_RECORD_SIZE], out[MBR_RECORD_SIZE];
		struct mbr m;
		memcpy(rec, data, sizeof rec);
		mbr_decode(rec, &m);
		memcpy(out, rec, sizeof out);
		mbr_encode(&m, out);
		if (memcmp(out, rec, MBR_SIGNATURE_OFF))
			__builtin_trap();
		for (unsigned i = 0; i < 4; i++) {
			uint64_t lba = chs_decode(m.part[i].chs_first);
			uint8_t c[3];
			if (lba != UINT64_MAX && lba <= CHS_MAX_LBA) {
				chs_encode(lba, c);
				if (chs_decode(c) != lba)
					__builtin_trap();
			}
		}
		mbr_check_protective(&m, size / MBR_RECORD_SIZE, &d);
	}

	for (unsigned z = 0; z < 2; z++) {
		uint32_t lss = sizes[z];
		if (!size)
			continue;
		struct fuzz_disk fd;
		fuzz_disk_open(&fd, data, size, lss, 0);
		uint64_t sectors = fd.sectors;
		int rc = mbr_read(&fd.dev, &t, &d);
		if (rc == 0)
			check_accepted(&t, sectors);
		else if (rc != AS_ENOENT && rc != AS_ECORRUPT)
			__builtin_trap();
		/* The table rule: an MBR verdict must come with 0x55AA and no 0xEE entry. */
		struct mbr lba0;
		struct label lb;
		if (label_read(&fd.dev, &lba0, &lb) == 0 && lb.kind == LABEL_MBR &&
		    (!lba0.boot_signature || mbr_is_protective(&lba0)))
			__builtin_trap();
		fuzz_disk_close(&fd);
	}
	return 0;
}
