/* A small DEFLATE (RFC 1951) decoder for stage2's packed body. Written for size, not speed:
 * Huffman codes are decoded one bit at a time against the canonical code counts, so the tables
 * are only counts and symbols in code order. Every read is bounded by the input, every write and
 * back-reference by the output: a damaged stream fails, it never overruns. */
#include "stage2/inflate.h"

#include "common/mem.h"

#define MAX_CODE_BITS 15
#define MAX_LIT_CODES 288     /* 286 used; the fixed code defines 288 */
#define MAX_DIST_CODES 32     /* 30 used; the fixed code defines 32 */
#define NUM_LEN_SYMS 29
#define NUM_DIST_SYMS 30
#define END_OF_BLOCK 256
#define CL_CODES 19

struct huffman {
	uint16_t count[MAX_CODE_BITS + 1];   /* codes of each length */
	uint16_t symbol[MAX_LIT_CODES];      /* symbols ordered by code */
};

struct inflater {
	const uint8_t *in, *in_end;
	uint8_t *out, *out_start, *out_end;
	uint32_t bitbuf;
	unsigned bitcnt;
	bool bad;
};

static const uint16_t len_base[NUM_LEN_SYMS] = {
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
};
static const uint8_t len_extra[NUM_LEN_SYMS] = {
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
};
static const uint16_t dist_base[NUM_DIST_SYMS] = {
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385,
	513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
};
static const uint8_t dist_extra[NUM_DIST_SYMS] = {
	0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
};
/* The order code-length code lengths are stored in (RFC 1951 3.2.7). */
static const uint8_t cl_order[CL_CODES] = {
	16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
};

static unsigned getbits(struct inflater *s, unsigned n)
{
	while (s->bitcnt < n) {
		if (s->in == s->in_end) {
			s->bad = true;
			return 0;
		}
		s->bitbuf |= (uint32_t)*s->in++ << s->bitcnt;
		s->bitcnt += 8;
	}
	unsigned v = s->bitbuf & ((1u << n) - 1);
	s->bitbuf >>= n;
	s->bitcnt -= n;
	return v;
}

/* Builds the canonical code for lengths[0..n); false when it is over-subscribed. */
static bool build(struct huffman *h, const uint8_t *lengths, unsigned n)
{
	uint16_t next[MAX_CODE_BITS + 1];
	int left = 1;

	memset(h->count, 0, sizeof h->count);
	for (unsigned i = 0; i < n; i++)
		h->count[lengths[i]]++;
	for (unsigned len = 1; len <= MAX_CODE_BITS; len++) {
		left = (left << 1) - h->count[len];
		if (left < 0)
			return false;
	}
	next[1] = 0;
	for (unsigned len = 1; len < MAX_CODE_BITS; len++)
		next[len + 1] = (uint16_t)(next[len] + h->count[len]);
	for (unsigned i = 0; i < n; i++)
		if (lengths[i])
			h->symbol[next[lengths[i]]++] = (uint16_t)i;
	return true;
}

static int decode(struct inflater *s, const struct huffman *h)
{
	int code = 0, first = 0, index = 0;

	for (unsigned len = 1; len <= MAX_CODE_BITS; len++) {
		code |= (int)getbits(s, 1);
		int count = h->count[len];
		if (code - first < count)
			return h->symbol[index + code - first];
		index += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	s->bad = true;
	return -1;
}

static bool stored_block(struct inflater *s)
{
	s->bitbuf = 0;
	s->bitcnt = 0;                    /* fewer than 8 bits are ever buffered: drop them */
	if (s->in_end - s->in < 4)
		return false;
	unsigned len = s->in[0] | (unsigned)s->in[1] << 8;
	unsigned nlen = s->in[2] | (unsigned)s->in[3] << 8;
	s->in += 4;
	if (len != (~nlen & 0xFFFFu) || len > (size_t)(s->in_end - s->in) ||
	    len > (size_t)(s->out_end - s->out))
		return false;
	memcpy(s->out, s->in, len);
	s->in += len;
	s->out += len;
	return true;
}

static bool huffman_block(struct inflater *s, const struct huffman *lit, const struct huffman *dist)
{
	for (;;) {
		int sym = decode(s, lit);
		if (s->bad)
			return false;
		if (sym < END_OF_BLOCK) {
			if (s->out == s->out_end)
				return false;
			*s->out++ = (uint8_t)sym;
			continue;
		}
		if (sym == END_OF_BLOCK)
			return true;
		sym -= END_OF_BLOCK + 1;
		if (sym >= NUM_LEN_SYMS)
			return false;
		size_t len = len_base[sym] + getbits(s, len_extra[sym]);
		int dsym = decode(s, dist);
		if (s->bad || dsym < 0 || dsym >= NUM_DIST_SYMS)
			return false;
		size_t back = dist_base[dsym] + getbits(s, dist_extra[dsym]);
		if (s->bad || back > (size_t)(s->out - s->out_start) ||
		    len > (size_t)(s->out_end - s->out))
			return false;
		while (len--) {
			*s->out = s->out[-(ptrdiff_t)back];
			s->out++;
		}
	}
}

static bool fixed_block(struct inflater *s, struct huffman *lit, struct huffman *dist)
{
	uint8_t lengths[MAX_LIT_CODES];
	unsigned i;

	for (i = 0; i < 144; i++)
		lengths[i] = 8;
	for (; i < 256; i++)
		lengths[i] = 9;
	for (; i < 280; i++)
		lengths[i] = 7;
	for (; i < MAX_LIT_CODES; i++)
		lengths[i] = 8;
	build(lit, lengths, MAX_LIT_CODES);
	for (i = 0; i < MAX_DIST_CODES; i++)
		lengths[i] = 5;
	build(dist, lengths, MAX_DIST_CODES);
	return huffman_block(s, lit, dist);
}

static bool dynamic_block(struct inflater *s, struct huffman *lit, struct huffman *dist)
{
	uint8_t lengths[MAX_LIT_CODES + MAX_DIST_CODES];
	unsigned nlen = getbits(s, 5) + 257;
	unsigned ndist = getbits(s, 5) + 1;
	unsigned ncl = getbits(s, 4) + 4;

	if (s->bad || nlen > 286 || ndist > NUM_DIST_SYMS)
		return false;
	memset(lengths, 0, CL_CODES);
	for (unsigned i = 0; i < ncl; i++)
		lengths[cl_order[i]] = (uint8_t)getbits(s, 3);
	if (!build(lit, lengths, CL_CODES))
		return false;

	for (unsigned i = 0; i < nlen + ndist;) {
		int sym = decode(s, lit);
		unsigned rep;
		uint8_t val = 0;
		if (s->bad)
			return false;
		if (sym < 16) {
			lengths[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16) {
			if (!i)
				return false;
			val = lengths[i - 1];
			rep = 3 + getbits(s, 2);
		} else if (sym == 17) {
			rep = 3 + getbits(s, 3);
		} else {
			rep = 11 + getbits(s, 7);
		}
		if (s->bad || i + rep > nlen + ndist)
			return false;
		while (rep--)
			lengths[i++] = val;
	}
	if (!lengths[END_OF_BLOCK])
		return false;
	if (!build(lit, lengths, nlen) || !build(dist, lengths + nlen, ndist))
		return false;
	return huffman_block(s, lit, dist);
}

bool inflate(const void *src, size_t src_len, void *dst, size_t dst_len, size_t *out_len)
{
	struct huffman lit, dist;
	struct inflater s = {
		.in = src,
		.in_end = (const uint8_t *)src + src_len,
		.out = dst,
		.out_start = dst,
		.out_end = (uint8_t *)dst + dst_len,
	};
	unsigned last;

	do {
		last = getbits(&s, 1);
		unsigned type = getbits(&s, 2);
		bool ok;
		if (s.bad)
			return false;
		if (type == 0)
			ok = stored_block(&s);
		else if (type == 1)
			ok = fixed_block(&s, &lit, &dist);
		else if (type == 2)
			ok = dynamic_block(&s, &lit, &dist);
		else
			ok = false;
		if (!ok)
			return false;
	} while (!last);
	*out_len = (size_t)(s.out - s.out_start);
	return true;
}
