/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/sha256.h"

#include "common/mem.h"

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* SHA-256 is defined on big-endian words. */
static inline uint32_t be32_load(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void be32_store(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* One 64-byte block. The message schedule is kept as a 16-word ring, and the rounds are a loop,
 * not unrolled: stage2's compressed size matters more than speed here. */
static void compress(uint32_t h[8], const uint8_t *block)
{
	uint32_t w[16], v[8];

	for (unsigned i = 0; i < 16; i++)
		w[i] = be32_load(block + 4 * i);
	for (unsigned i = 0; i < 8; i++)
		v[i] = h[i];
	for (unsigned i = 0; i < 64; i++) {
		if (i >= 16) {
			uint32_t w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15];
			uint32_t s0 = ror(w15, 7) ^ ror(w15, 18) ^ (w15 >> 3);
			uint32_t s1 = ror(w2, 17) ^ ror(w2, 19) ^ (w2 >> 10);
			w[i & 15] += s0 + w[(i - 7) & 15] + s1;
		}
		uint32_t e = v[4], a = v[0];
		uint32_t t1 = v[7] + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & v[5]) ^ (~e & v[6])) +
			      k[i] + w[i & 15];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
		for (unsigned j = 7; j > 0; j--)
			v[j] = v[j - 1];
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (unsigned i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha256_init(struct sha256 *s)
{
	/* The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	for (unsigned i = 0; i < 8; i++)
		s->h[i] = iv[i];
	s->bytes = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t used = (size_t)(s->bytes % SHA256_BLOCK);

	s->bytes += len;
	if (used) {
		size_t n = SHA256_BLOCK - used;
		if (n > len)
			n = len;
		memcpy(s->block + used, p, n);
		p += n;
		len -= n;
		if (used + n < SHA256_BLOCK)
			return;
		compress(s->h, s->block);
	}
	for (; len >= SHA256_BLOCK; p += SHA256_BLOCK, len -= SHA256_BLOCK)
		compress(s->h, p);
	memcpy(s->block, p, len);
}

void sha256_final(struct sha256 *s, uint8_t out[SHA256_BYTES])
{
	size_t used = (size_t)(s->bytes % SHA256_BLOCK);
	uint64_t bits = s->bytes * 8;

	/* 0x80, zeros to 56 bytes into a block, then the length in bits, big-endian. */
	s->block[used++] = 0x80;
	if (used > SHA256_BLOCK - 8) {
		memset(s->block + used, 0, SHA256_BLOCK - used);
		compress(s->h, s->block);
		used = 0;
	}
	memset(s->block + used, 0, SHA256_BLOCK - 8 - used);
	be32_store(s->block + 56, (uint32_t)(bits >> 32));
	be32_store(s->block + 60, (uint32_t)bits);
	compress(s->h, s->block);
	for (unsigned i = 0; i < 8; i++)
		be32_store(out + 4 * i, s->h[i]);
	sha256_init(s);
}

static const char hexdigits[] = "0123456789abcdef";

void sha256_hex(const uint8_t d[SHA256_BYTES], char out[SHA256_HEX_LEN + 1])
{
	for (unsigned i = 0; i < SHA256_BYTES; i++) {
		out[2 * i] = hexdigits[d[i] >> 4];
		out[2 * i + 1] = hexdigits[d[i] & 15];
	}
	out[SHA256_HEX_LEN] = 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool sha256_from_hex(const char *text, size_t n, uint8_t out[SHA256_BYTES])
{
	if (n != SHA256_HEX_LEN)
		return false;
	for (unsigned i = 0; i < SHA256_BYTES; i++) {
		int hi = hexval(text[2 * i]), lo = hexval(text[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}
