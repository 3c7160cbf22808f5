/* SPDX-License-Identifier: BSD-2-Clause */
/* Small arithmetic every part shares (stage2, the EFI application, the host tools): powers of
 * two, rounding, array lengths. Header-only and freestanding. (Alignment of LBAs to a drive's
 * topology is common/align.h's align_up/align_down; these work on plain numbers.) */
#ifndef ANYSECTOR_BITS_H
#define ANYSECTOR_BITS_H

#include <stdbool.h>
#include <stdint.h>

/* The number of elements of an array (not of a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* n / d rounded up, for unsigned n and d > 0. Written without n + d - 1, so it holds up to
 * the type's maximum (sizes from the command line reach it). */
#define DIV_ROUND_UP(n, d) ((n) / (d) + ((n) % (d) != 0))

/* x rounded up / down to a multiple of a, a power of two, in x's type (rounding up: x + a - 1
 * must fit that type). */
#define ALIGN_UP(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))

static inline bool is_pow2_32(uint32_t v)
{
	return v && !(v & (v - 1));
}

static inline bool is_pow2_64(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Whether v is a power of two (0 is not), computed in v's own width: 32-bit code (stage2) does
 * no 64-bit arithmetic for a 32-bit value. */
#define is_pow2(v) (sizeof(v) > sizeof(uint32_t) ? is_pow2_64(v) : is_pow2_32((uint32_t)(v)))

#endif
