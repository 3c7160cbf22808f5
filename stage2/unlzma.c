/* SPDX-License-Identifier: BSD-2-Clause */
/* A small LZMA decoder for stage2's packed body (stage2/pack.py): a range decoder and the LZMA
 * model (literals with their previous byte as context, matches, the four repeated distances),
 * written for size. The whole output is one flat buffer, so there is no dictionary window:
 * every distance is checked against what has been written. Every read is bounded by the input,
 * every write by the output: a damaged stream fails, it never overruns. */
#include "stage2/unlzma.h"

#include "common/le.h"

#define PROB_BITS 11
#define PROB_INIT (1u << (PROB_BITS - 1))
#define MOVE_BITS 5
#define TOP (1u << 24)
#define STATES 12
#define LIT_STATES 7
#define POS_STATES_MAX 16
#define END_POS_SLOT 14 /* slots below it code their low bits with SpecPos */
#define FULL_DISTANCES 128
#define ALIGN_BITS 4
#define MIN_MATCH 2

struct len_probs {
	uint16_t choice, choice2;
	uint16_t low[POS_STATES_MAX][8], mid[POS_STATES_MAX][8], high[256];
};

/* The model's probabilities; literals last, their count depends on lc + lp. */
struct lzma_probs {
	uint16_t is_match[STATES][POS_STATES_MAX];
	uint16_t is_rep[STATES], is_rep_g0[STATES], is_rep_g1[STATES], is_rep_g2[STATES];
	uint16_t is_rep0_long[STATES][POS_STATES_MAX];
	uint16_t pos_slot[4][64];
	uint16_t spec_pos[1 + FULL_DISTANCES - END_POS_SLOT]; /* trees from index 1, see rc_tree_rev */
	uint16_t align[1 << ALIGN_BITS];
	struct len_probs len, rep_len;
	uint16_t literal[];
};

struct rc {
	const uint8_t *in, *end;
	uint32_t range, code;
	bool bad;
};

static void rc_normalize(struct rc *rc)
{
	if (rc->range < TOP) {
		uint8_t b = 0;
		if (rc->in < rc->end)
			b = *rc->in++;
		else
			rc->bad = true;
		rc->range <<= 8;
		rc->code = (rc->code << 8) | b;
	}
}

static unsigned rc_bit(struct rc *rc, uint16_t *p)
{
	uint32_t bound = (rc->range >> PROB_BITS) * *p;
	unsigned bit;

	if (rc->code < bound) {
		rc->range = bound;
		*p += ((1u << PROB_BITS) - *p) >> MOVE_BITS;
		bit = 0;
	} else {
		rc->range -= bound;
		rc->code -= bound;
		*p -= *p >> MOVE_BITS;
		bit = 1;
	}
	rc_normalize(rc);
	return bit;
}

/* n bits, most significant first, through a tree of 2^n probabilities. */
static unsigned rc_tree(struct rc *rc, uint16_t *p, unsigned n)
{
	unsigned m = 1;

	while (n--)
		m = (m << 1) | rc_bit(rc, &p[m]);
	return m;
}

/* n bits, least significant first. */
static uint32_t rc_tree_rev(struct rc *rc, uint16_t *p, unsigned n)
{
	unsigned m = 1;
	uint32_t v = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned bit = rc_bit(rc, &p[m]);
		m = (m << 1) | bit;
		v |= (uint32_t)bit << i;
	}
	return v;
}

static uint32_t rc_direct(struct rc *rc, unsigned n)
{
	uint32_t v = 0;

	while (n--) {
		rc->range >>= 1;
		uint32_t bit = rc->code >= rc->range;
		if (bit)
			rc->code -= rc->range;
		v = (v << 1) | bit;
		rc_normalize(rc);
	}
	return v;
}

/* A match length minus MIN_MATCH: 0..271. */
static unsigned rc_len(struct rc *rc, struct len_probs *l, unsigned pos_state)
{
	if (!rc_bit(rc, &l->choice))
		return rc_tree(rc, l->low[pos_state], 3) - 8;
	if (!rc_bit(rc, &l->choice2))
		return rc_tree(rc, l->mid[pos_state], 3);
	return rc_tree(rc, l->high, 8) - 256 + 16;
}

static uint32_t rc_distance(struct rc *rc, struct lzma_probs *p, unsigned len)
{
	unsigned slot = rc_tree(rc, p->pos_slot[len < 3 ? len : 3], 6) - 64;

	if (slot < 4)
		return slot;
	unsigned n = (slot >> 1) - 1;
	uint32_t dist = (2u | (slot & 1)) << n;
	if (slot < END_POS_SLOT)
		return dist + rc_tree_rev(rc, p->spec_pos + dist - slot, n);
	dist += rc_direct(rc, n - ALIGN_BITS) << ALIGN_BITS;
	return dist + rc_tree_rev(rc, p->align, ALIGN_BITS);
}

size_t lzma_probs_bytes(unsigned props)
{
	unsigned lc = props % 9, lp = props / 9 % 5;

	return sizeof(struct lzma_probs) + (0x300u << (lc + lp)) * sizeof(uint16_t);
}

bool lzma_unpack(const void *src, size_t src_len, void *dst, size_t dst_len, void *scratch,
		 size_t scratch_len)
{
	const uint8_t *s = src;
	uint8_t *out = dst;
	struct lzma_probs *p = scratch;
	struct rc rc = { s + 2, s + src_len, 0xFFFFFFFFu, 0, false };
	uint32_t rep[4] = { 0, 0, 0, 0 };
	unsigned state = 0;
	size_t pos = 0;

	/* The properties byte, then the range coder's first five bytes (the first is always 0). */
	if (src_len < 6 || s[0] >= 9 * 5 * 5 || s[1] || lzma_probs_bytes(s[0]) > scratch_len)
		return false;
	unsigned lc = s[0] % 9, lp_mask = (1u << (s[0] / 9 % 5)) - 1, pb_mask = (1u << (s[0] / 45)) - 1;
	for (int i = 0; i < 4; i++)
		rc.code = (rc.code << 8) | *rc.in++;
	for (size_t i = 0; i < lzma_probs_bytes(s[0]) / sizeof(uint16_t); i++)
		((uint16_t *)p)[i] = PROB_INIT;

	while (pos < dst_len && !rc.bad) {
		unsigned ps = pos & pb_mask;
		if (!rc_bit(&rc, &p->is_match[state][ps])) {
			unsigned prev = pos ? out[pos - 1] : 0;
			uint16_t *lit = p->literal + 0x300 * (((pos & lp_mask) << lc) + (prev >> (8 - lc)));
			unsigned sym = 1;
			if (state >= LIT_STATES) {
				/* after a match: the byte at rep0 steers the first bits */
				if (rep[0] >= pos)
					return false;
				unsigned match = out[pos - rep[0] - 1];
				while (sym < 0x100) {
					unsigned mbit = (match >> 7) & 1;
					match <<= 1;
					unsigned bit = rc_bit(&rc, &lit[((1 + mbit) << 8) + sym]);
					sym = (sym << 1) | bit;
					if (bit != mbit)
						break;
				}
			}
			while (sym < 0x100)
				sym = (sym << 1) | rc_bit(&rc, &lit[sym]);
			out[pos++] = (uint8_t)sym;
			state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
			continue;
		}
		unsigned len;
		if (!rc_bit(&rc, &p->is_rep[state])) {
			rep[3] = rep[2];
			rep[2] = rep[1];
			rep[1] = rep[0];
			len = rc_len(&rc, &p->len, ps);
			state = state < LIT_STATES ? 7 : 10;
			rep[0] = rc_distance(&rc, p, len);
		} else {
			if (!rc_bit(&rc, &p->is_rep_g0[state])) {
				if (!rc_bit(&rc, &p->is_rep0_long[state][ps])) {
					/* one byte from rep0 */
					state = state < LIT_STATES ? 9 : 11;
					len = 1 - MIN_MATCH;
					goto copy;
				}
			} else {
				uint32_t d;
				if (!rc_bit(&rc, &p->is_rep_g1[state])) {
					d = rep[1];
				} else {
					if (!rc_bit(&rc, &p->is_rep_g2[state])) {
						d = rep[2];
					} else {
						d = rep[3];
						rep[3] = rep[2];
					}
					rep[2] = rep[1];
				}
				rep[1] = rep[0];
				rep[0] = d;
			}
			len = rc_len(&rc, &p->rep_len, ps);
			state = state < LIT_STATES ? 8 : 11;
		}
copy:
		/* Also refuses the end marker (distance 0xFFFFFFFF): the length is known. */
		len += MIN_MATCH;
		if (rep[0] >= pos || len > dst_len - pos)
			return false;
		for (; len; len--, pos++)
			out[pos] = out[pos - rep[0] - 1];
	}
	return !rc.bad;
}

void x86_unfilter(uint8_t *b, size_t len)
{
	for (size_t i = 0; i + 5 <= len; i++) {
		if ((b[i] & 0xFE) != 0xE8)
			continue;
		/* CALL/JMP rel32: pack.py stored the target's offset in the text (so repeated calls of
		 * one function read the same), permuting the other values so every one comes back. */
		uint32_t v = le32_load(b + i + 1), at = (uint32_t)i + 5;
		if (v < len)
			v -= at;
		else if (v + at < at)
			v += (uint32_t)len;
		le32_store(b + i + 1, v);
		i += 4;
	}
}
