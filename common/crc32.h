/* SPDX-License-Identifier: BSD-2-Clause */
/* CRC-32 as zlib/IEEE 802.3 (reflected poly 0xEDB88320, init and xorout ~0): GPT headers and
 * arrays, the stage2 self-check, the test payloads' initrd check. */
#ifndef ANYSECTOR_CRC32_H
#define ANYSECTOR_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Start with crc = 0; feed pieces in order; the result of the last call is the CRC. */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

static inline uint32_t crc32(const void *buf, size_t len)
{
	return crc32_update(0, buf, len);
}

#endif
