/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/sha1.h"

#include "common/mem.h"

static inline uint32_t rol(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void compress(uint32_t h[5], const uint8_t *p)
{
	uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (unsigned i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (unsigned i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i >= 16)
			w[i & 15] = rol(w[(i - 3) & 15] ^ w[(i - 8) & 15] ^ w[(i - 14) & 15] ^
					w[i & 15], 1);
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5A827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ED9EBA1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8F1BBCDC;
		} else {
			f = b ^ c ^ d;
			k = 0xCA62C1D6;
		}
		uint32_t t = rol(a, 5) + f + e + k + w[i & 15];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void sha1_init(struct sha1 *s)
{
	static const uint32_t iv[5] = { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476,
					0xC3D2E1F0 };
	for (unsigned i = 0; i < 5; i++)
		s->h[i] = iv[i];
	s->bytes = 0;
}

void sha1_update(struct sha1 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t used = (size_t)(s->bytes % SHA1_BLOCK);

	s->bytes += len;
	if (used) {
		size_t n = SHA1_BLOCK - used < len ? SHA1_BLOCK - used : len;
		memcpy(s->block + used, p, n);
		p += n;
		len -= n;
		if (used + n < SHA1_BLOCK)
			return;
		compress(s->h, s->block);
	}
	for (; len >= SHA1_BLOCK; p += SHA1_BLOCK, len -= SHA1_BLOCK)
		compress(s->h, p);
	memcpy(s->block, p, len);
}

void sha1_final(struct sha1 *s, uint8_t out[SHA1_BYTES])
{
	size_t used = (size_t)(s->bytes % SHA1_BLOCK);
	uint64_t bits = s->bytes * 8;

	s->block[used++] = 0x80;
	if (used > SHA1_BLOCK - 8) {
		memset(s->block + used, 0, SHA1_BLOCK - used);
		compress(s->h, s->block);
		used = 0;
	}
	memset(s->block + used, 0, SHA1_BLOCK - used);
	for (unsigned i = 0; i < 8; i++)
		s->block[SHA1_BLOCK - 1 - i] = (uint8_t)(bits >> (8 * i));
	compress(s->h, s->block);
	for (unsigned i = 0; i < SHA1_BYTES; i++)
		out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
	sha1_init(s);
}
