/* SPDX-License-Identifier: BSD-2-Clause */
/* CRC-32 (common/crc32.h's: zlib/IEEE 802.3) for the host's large buffers: the journal's records
 * hold every byte a plan writes and every byte it replaces, tens of MiB for a kernel and an
 * initrd. common/crc32.c keeps a 64-byte table for stage2's size and does a byte in two steps;
 * this one folds 64 bytes a step with carry-less multiplication (PCLMULQDQ) where the CPU has it,
 * else takes eight bytes a step through eight 1 KiB tables (slicing-by-8); the same results
 * (tests/unit/test_tools_crc32_fast.c). */
#ifndef ANYSECTOR_TOOLS_CRC32_FAST_H
#define ANYSECTOR_TOOLS_CRC32_FAST_H

#include <stddef.h>
#include <stdint.h>

/* As crc32_update: start with crc = 0, feed pieces in order; the last result is the CRC. */
uint32_t crc32_fast_update(uint32_t crc, const void *buf, size_t len);
/* The same by the tables alone, whatever the CPU has: the tests compare the two. */
uint32_t crc32_fast_portable_update(uint32_t crc, const void *buf, size_t len);

/* The CRC of A followed by B, from A's CRC, B's CRC and B's length: the journal saves old
 * bytes it reads once, writing its record's header (which holds their CRC) before them. */
uint32_t crc32_fast_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
/* As crc32_fast_update over len zero bytes, without reading them: the journal's backup of free
 * clusters that hold zeros (a new ESP's). */
uint32_t crc32_fast_zeros(uint32_t crc, uint64_t len);

static inline uint32_t crc32_fast(const void *buf, size_t len)
{
	return crc32_fast_update(0, buf, len);
}

#endif
