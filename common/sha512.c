/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/sha512.h"

#include "common/mem.h"

/* The first 64 bits of the fractional parts of the cube roots of the first 80 primes. */
static const uint64_t k[80] = {
	0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
	0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
	0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
	0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
	0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
	0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
	0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
	0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
	0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
	0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
	0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
	0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
	0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
	0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
	0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
	0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
	0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
	0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
	0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
	0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

static inline uint64_t ror(uint64_t x, unsigned n)
{
	return (x >> n) | (x << (64 - n));
}

static void compress(uint64_t h[8], const uint8_t *p)
{
	uint64_t w[16], v[8];

	for (unsigned i = 0; i < 16; i++) {
		w[i] = 0;
		for (unsigned j = 0; j < 8; j++)
			w[i] = w[i] << 8 | p[8 * i + j];
	}
	for (unsigned i = 0; i < 8; i++)
		v[i] = h[i];
	for (unsigned i = 0; i < 80; i++) {
		if (i >= 16) {
			uint64_t w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15];
			w[i & 15] += (ror(w15, 1) ^ ror(w15, 8) ^ (w15 >> 7)) + w[(i - 7) & 15] +
				     (ror(w2, 19) ^ ror(w2, 61) ^ (w2 >> 6));
		}
		uint64_t e = v[4], a = v[0];
		uint64_t t1 = v[7] + (ror(e, 14) ^ ror(e, 18) ^ ror(e, 41)) +
			      ((e & v[5]) ^ (~e & v[6])) + k[i] + w[i & 15];
		uint64_t t2 = (ror(a, 28) ^ ror(a, 34) ^ ror(a, 39)) +
			      ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
		for (unsigned j = 7; j > 0; j--)
			v[j] = v[j - 1];
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (unsigned i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha512_init(struct sha512 *s, bool is384)
{
	static const uint64_t iv512[8] = {
		0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
		0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
	};
	static const uint64_t iv384[8] = {
		0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
		0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4,
	};
	for (unsigned i = 0; i < 8; i++)
		s->h[i] = is384 ? iv384[i] : iv512[i];
	s->bytes = 0;
	s->is384 = is384;
}

void sha512_update(struct sha512 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t used = (size_t)(s->bytes % SHA512_BLOCK);

	s->bytes += len;
	if (used) {
		size_t n = SHA512_BLOCK - used < len ? SHA512_BLOCK - used : len;
		memcpy(s->block + used, p, n);
		p += n;
		len -= n;
		if (used + n < SHA512_BLOCK)
			return;
		compress(s->h, s->block);
	}
	for (; len >= SHA512_BLOCK; p += SHA512_BLOCK, len -= SHA512_BLOCK)
		compress(s->h, p);
	memcpy(s->block, p, len);
}

void sha512_final(struct sha512 *s, uint8_t *out)
{
	size_t used = (size_t)(s->bytes % SHA512_BLOCK);
	uint64_t bits = s->bytes * 8;
	unsigned n = s->is384 ? SHA384_BYTES : SHA512_BYTES;

	/* 0x80, zeros, then the length as a 128-bit big-endian number (its top half zero). */
	s->block[used++] = 0x80;
	if (used > SHA512_BLOCK - 16) {
		memset(s->block + used, 0, SHA512_BLOCK - used);
		compress(s->h, s->block);
		used = 0;
	}
	memset(s->block + used, 0, SHA512_BLOCK - used);
	for (unsigned i = 0; i < 8; i++)
		s->block[SHA512_BLOCK - 1 - i] = (uint8_t)(bits >> (8 * i));
	compress(s->h, s->block);
	for (unsigned i = 0; i < n; i++)
		out[i] = (uint8_t)(s->h[i / 8] >> (56 - 8 * (i % 8)));
	sha512_init(s, s->is384);
}
