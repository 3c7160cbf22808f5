/* SPDX-License-Identifier: BSD-2-Clause */
/* Little-endian loads and stores, byte by byte, so on-disk fields are read from any alignment
 * without casting structs over buffers. */
#ifndef ANYSECTOR_LE_H
#define ANYSECTOR_LE_H

#include <stdint.h>

static inline uint16_t le16_load(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] | (uint16_t)b[1] << 8);
}

static inline uint32_t le32_load(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t le64_load(const void *p)
{
	const uint8_t *b = p;
	return (uint64_t)le32_load(b) | (uint64_t)le32_load(b + 4) << 32;
}

/* le64_load in one load where the host is little-endian (every target here is x86), always
 * inlined: for hot loops, where -Os outlines the byte-by-byte form and a call per field costs more
 * than the loop's own work (the FAT chain walk, common/fat_read.c). Not le64_load itself: its
 * byte-by-byte form keeps the legacy-gap stage2 within its budget. */
static inline __attribute__((always_inline)) uint64_t le64_load_inline(const void *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	__builtin_memcpy(&v, p, sizeof v);
	return v;
#else
	return le64_load(p);
#endif
}

static inline void le16_store(void *p, uint16_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void le32_store(void *p, uint32_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void le64_store(void *p, uint64_t v)
{
	uint8_t *b = p;
	le32_store(b, (uint32_t)v);
	le32_store(b + 4, (uint32_t)(v >> 32));
}

#endif
