/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: the alignment math on any topology a device may report (sysfs and ioctls are the
 * device's word, not ours). align_topology_check must give a verdict; for a topology it accepts,
 * the grain must be a multiple of the logical sector size, and align_up / align_down must return
 * aligned LBAs on the right side of the one asked about (or UINT64_MAX where they promise it).
 * Input: lss, pss, aoff, io_min, io_opt (le32 each), sectors and three LBAs (le64 each). */
#include <stdint.h>
#include <string.h>

#include "common/align.h"
#include "common/le.h"
#include "tests/fuzz/fuzz_diag.h"

static void check_lba(const struct topology *t, uint64_t grain, uint64_t lba)
{
	uint64_t up = align_up(t, lba, grain), down = align_down(t, lba, grain);
	if (up != UINT64_MAX && (up < lba || !align_lba_ok(t, up, grain)))
		__builtin_trap();
	if (down != UINT64_MAX && (down > lba || !align_lba_ok(t, down, grain)))
		__builtin_trap();
	if (align_lba_ok(t, lba, grain) && (up != lba || down != lba))
		__builtin_trap();
	/* nothing aligned lies strictly between down and up */
	if (up != UINT64_MAX && down != UINT64_MAX && up > down + 1 &&
	    grain / t->lss <= 64)
		for (uint64_t x = down + 1; x < up; x++)
			if (align_lba_ok(t, x, grain))
				__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d = { .emit = fuzz_emit };
	struct topology t;

	if (size < 20 + 32)
		return 0;
	t = (struct topology){ le32_load(data), le32_load(data + 4), le32_load(data + 8),
			       le32_load(data + 12), le32_load(data + 16), le64_load(data + 20) };
	if (!align_topology_check(&t, &d))
		return 0;
	(void)align_sane_io_opt(&t);
	(void)align_effective_offset(&t);
	for (int mib = 0; mib < 2; mib++) {
		uint64_t grain = align_grain(&t, mib);
		if (!grain || grain % t.lss)
			__builtin_trap();
		for (int i = 0; i < 3; i++)
			check_lba(&t, grain, le64_load(data + 28 + 8 * i));
	}
	return 0;
}
