/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/base/crc32_fast.h"

#include <stdbool.h>

#include "common/le.h"

#define CRC32_POLY 0xEDB88320u

/* table[0][b]: the CRC of byte b alone; table[s][b]: the same byte followed by s zero bytes,
 * so eight bytes fold in with eight lookups. Built on first use. */
static uint32_t table[8][256];
static bool built;

static void build(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32_POLY : c >> 1;
		table[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int s = 1; s < 8; s++)
			table[s][b] = (table[s - 1][b] >> 8) ^ table[0][table[s - 1][b] & 0xFF];
	built = true;
}

/* The table path on the register (the CRC inverted). */
static uint32_t table_update(uint32_t crc, const uint8_t *p, size_t len)
{
	if (!built)
		build();
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t lo = le32_load(p) ^ crc, hi = le32_load(p + 4);
		crc = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
		      table[4][lo >> 24] ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^
		      table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xFF];
	return crc;
}

uint32_t crc32_fast_portable_update(uint32_t crc, const void *buf, size_t len)
{
	return ~table_update(~crc, buf, len);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

/* x mod P folded forward by 128 bits times four (k1, k2), by 128 bits (k3, k4), 64 to 32 (k5),
 * and Barrett's P and mu: the reflected constants of Gopal et al., "Fast CRC Computation for
 * Generic Polynomials Using PCLMULQDQ Instruction" (Intel, 2009), for 0x04C11DB7. */
static const uint64_t k1k2[2] __attribute__((aligned(16))) = { 0x0154442bd4, 0x01c6e41596 };
static const uint64_t k3k4[2] __attribute__((aligned(16))) = { 0x01751997d0, 0x00ccaa009e };
static const uint64_t k5k0[2] __attribute__((aligned(16))) = { 0x0163cd6124, 0 };
static const uint64_t poly_mu[2] __attribute__((aligned(16))) = { 0x01db710641, 0x01f7011641 };

/* a folded forward by the constants in k and xored into b. */
CLMUL_TARGET static inline __m128i fold(__m128i a, __m128i k, __m128i b)
{
	__m128i lo = _mm_clmulepi64_si128(a, k, 0x00), hi = _mm_clmulepi64_si128(a, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(hi, lo), b);
}

/* The register after len bytes (len >= 64, a multiple of 16), four 16-byte lanes folded 64 bytes
 * a step, then into one lane and down to 32 bits: about ten times the table's speed. */
CLMUL_TARGET static uint32_t clmul_update(uint32_t crc, const uint8_t *p, size_t len)
{
	__m128i x1 = _mm_loadu_si128((const __m128i *)p);
	__m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));
	__m128i x4 = _mm_loadu_si128((const __m128i *)(p + 48));
	__m128i k = _mm_load_si128((const __m128i *)k1k2), mask = _mm_setr_epi32(~0, 0, ~0, 0);

	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
	for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
		x1 = fold(x1, k, _mm_loadu_si128((const __m128i *)p));
		x2 = fold(x2, k, _mm_loadu_si128((const __m128i *)(p + 16)));
		x3 = fold(x3, k, _mm_loadu_si128((const __m128i *)(p + 32)));
		x4 = fold(x4, k, _mm_loadu_si128((const __m128i *)(p + 48)));
	}
	k = _mm_load_si128((const __m128i *)k3k4);
	x1 = fold(fold(fold(x1, k, x2), k, x3), k, x4);
	for (; len >= 16; p += 16, len -= 16)
		x1 = fold(x1, k, _mm_loadu_si128((const __m128i *)p));
	/* 128 bits to 64 */
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(x1, k, 0x10));
	k = _mm_loadl_epi64((const __m128i *)k5k0);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 4),
			   _mm_clmulepi64_si128(_mm_and_si128(x1, mask), k, 0x00));
	/* Barrett's reduction to 32 */
	k = _mm_load_si128((const __m128i *)poly_mu);
	__m128i t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask), k, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, mask), k, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x1, t), 1);
}

static bool has_clmul(void)
{
	static int known; /* 0 not asked yet, 1 no, 2 yes */
	if (!known)
		known = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1") ? 2 : 1;
	return known == 2;
}
#else
static bool has_clmul(void)
{
	return false;
}

static uint32_t clmul_update(uint32_t crc, const uint8_t *p, size_t len)
{
	(void)p;
	(void)len;
	return crc;
}
#endif

uint32_t crc32_fast_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t reg = ~crc;

	if (len >= 64 && has_clmul()) {
		size_t n = len & ~(size_t)15;
		reg = clmul_update(reg, p, n);
		p += n;
		len -= n;
	}
	return ~table_update(reg, p, len);
}

/* a(x) * b(x) modulo the CRC's polynomial, in the reflected bit order the CRC uses (bit 31 is
 * x^0). */
static uint32_t mult_mod(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
	for (uint32_t m = 1u << 31; m; m >>= 1) {
		if (a & m)
			p ^= b;
		b = b & 1 ? (b >> 1) ^ CRC32_POLY : b >> 1;
	}
	return p;
}

/* x^(8 len) modulo the polynomial: the power by squaring x^(2^k). */
static uint32_t shift_bytes(uint64_t len)
{
	uint32_t x_pow = 1u << 30;   /* x^1 */
	uint32_t shift = 1u << 31;   /* x^0 */
	for (uint64_t n = len * 8; n; n >>= 1) {
		if (n & 1)
			shift = mult_mod(shift, x_pow);
		x_pow = mult_mod(x_pow, x_pow);
	}
	return shift;
}

uint32_t crc32_fast_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
	/* crc(A || B) = crc_a * x^(8 len_b) + crc_b (the pre- and post-inversions cancel) */
	return mult_mod(shift_bytes(len_b), crc_a) ^ crc_b;
}

uint32_t crc32_fast_zeros(uint32_t crc, uint64_t len)
{
	/* the register (the inverted CRC) shifted through len zero bytes */
	return ~mult_mod(shift_bytes(len), ~crc);
}
