/* SPDX-License-Identifier: BSD-2-Clause */
/* A block device over a memory buffer, with fault injection: the driver for tests and fuzzers
 * (and for firmware code that wants to parse a table it already holds in memory). */
#ifndef ANYSECTOR_MEMDISK_H
#define ANYSECTOR_MEMDISK_H

#include "common/blockdev.h"

struct memdisk {
	uint8_t *data;
	uint64_t size;          /* bytes; a whole number of sectors */
	bool readonly;
	/* Fault injection: every read (or write) touching fail_lba .. fail_lba + fail_span - 1
	 * (span 0 counts as 1) fails with AS_EIO; with fail_times > 0 only that many reads (or
	 * writes) fail (a transient error), and with reset_heals a reset ends the fault. */
	bool fail_reads;
	bool fail_writes;
	uint64_t fail_lba;
	uint64_t fail_span;
	unsigned fail_times;
	bool reset_heals;
	/* What the driver was asked for, for tests that check the splitting and the retries. */
	unsigned calls;
	unsigned read_failures;
	unsigned write_failures;
	unsigned resets;
	uint32_t max_count_seen;
	uint64_t sectors_read;
	uint64_t sectors_written;
};

/* Sets up dev over md->data, with a reset callback that counts (and heals, see reset_heals).
 * scratch must hold lss bytes. max_io 0 = no limit.
 * Returns AS_EINVAL when the geometry is not valid or size is not a multiple of lss. */
int memdisk_init(struct blockdev *dev, struct memdisk *md, uint32_t lss, uint32_t pss,
		 uint32_t align_offset, uint32_t max_io, void *scratch);

#endif
