/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/tcg.h"

#include "common/errors.h"
#include "common/le.h"
#include "common/mem.h"
#include "common/sha1.h"
#include "common/sha256.h"
#include "common/sha512.h"

#define TPM_ST_NO_SESSIONS 0x8001u
#define TPM_ST_SESSIONS 0x8002u
#define TPM_CC_PCR_EXTEND 0x00000182u
#define TPM_CC_GET_CAPABILITY 0x0000017Au
#define TPM_CAP_PCRS 0x00000005u
#define TPM_RS_PW 0x40000009u
#define TPM_HEADER_BYTES 10u
/* authorization area of an empty password session: handle, nonce size, attributes (continue
 * session), hmac size */
#define TPM_PW_AUTH_BYTES 9u
#define SPEC_ID_SIGNATURE "Spec ID Event03"
#define LOG_V1_HEADER 32u        /* pcr, type, SHA-1 digest, event size */
#define EV_NO_ACTION 3u

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p = put16(p, (uint16_t)(v >> 16));
	return put16(p, (uint16_t)v);
}

unsigned tcg_digest_size(uint16_t alg)
{
	switch (alg) {
	case TCG_ALG_SHA1: return SHA1_BYTES;
	case TCG_ALG_SHA256: return SHA256_BYTES;
	case TCG_ALG_SHA384: return SHA384_BYTES;
	case TCG_ALG_SHA512: return SHA512_BYTES;
	default: return 0;
	}
}

static void hash_one(uint16_t alg, const void *a, size_t alen, const void *b, size_t blen,
		     uint8_t *out)
{
	union {
		struct sha1 s1;
		struct sha256 s256;
		struct sha512 s512;
	} u;

	if (alg == TCG_ALG_SHA1) {
		sha1_init(&u.s1);
		sha1_update(&u.s1, a, alen);
		if (blen)
			sha1_update(&u.s1, b, blen);
		sha1_final(&u.s1, out);
	} else if (alg == TCG_ALG_SHA256) {
		sha256_init(&u.s256);
		sha256_update(&u.s256, a, alen);
		if (blen)
			sha256_update(&u.s256, b, blen);
		sha256_final(&u.s256, out);
	} else {
		sha512_init(&u.s512, alg == TCG_ALG_SHA384);
		sha512_update(&u.s512, a, alen);
		if (blen)
			sha512_update(&u.s512, b, blen);
		sha512_final(&u.s512, out);
	}
}

void tcg_hash(const struct tcg_banks *banks, const void *a, size_t alen, const void *b,
	      size_t blen, struct tcg_digests *out)
{
	out->n = banks->n;
	for (unsigned i = 0; i < banks->n; i++) {
		out->alg[i] = banks->alg[i];
		hash_one(banks->alg[i], a, alen, b, blen, out->d[i]);
	}
}

void tcg_getcap_pcrs_cmd(uint8_t cmd[TCG_GETCAP_CMD_BYTES])
{
	uint8_t *p = put16(cmd, TPM_ST_NO_SESSIONS);
	p = put32(p, TCG_GETCAP_CMD_BYTES);
	p = put32(p, TPM_CC_GET_CAPABILITY);
	p = put32(p, TPM_CAP_PCRS);
	p = put32(p, 0);          /* first property */
	put32(p, TCG_MAX_BANKS);  /* count */
}

int tcg_response_rc(const uint8_t *rsp, size_t len, uint32_t *rc)
{
	if (len < TPM_HEADER_BYTES || be32(rsp + 2) != len)
		return AS_ECORRUPT;
	*rc = be32(rsp + 6);
	return 0;
}

int tcg_getcap_pcrs_parse(const uint8_t *rsp, size_t len, unsigned pcr, struct tcg_banks *out,
			  uint32_t *rc)
{
	size_t at = TPM_HEADER_BYTES + 5;   /* moreData, capability */

	out->n = 0;
	*rc = 0;
	if (tcg_response_rc(rsp, len, rc) || *rc || len < at + 4 ||
	    be32(rsp + TPM_HEADER_BYTES + 1) != TPM_CAP_PCRS)
		return AS_ECORRUPT;
	uint32_t count = be32(rsp + at);
	at += 4;
	for (uint32_t i = 0; i < count; i++) {
		if (len - at < 3 || len - at - 3 < rsp[at + 2])
			return AS_ECORRUPT;
		uint16_t alg = be16(rsp + at);
		unsigned select = rsp[at + 2];
		bool on = pcr / 8 < select && (rsp[at + 3 + pcr / 8] >> (pcr % 8) & 1);
		at += 3 + select;
		if (!on)
			continue;
		if (!tcg_digest_size(alg)) {
			*rc = alg;
			return AS_EUNSUPP;
		}
		if (out->n == TCG_MAX_BANKS)
			return AS_ECORRUPT;
		out->alg[out->n++] = alg;
	}
	return 0;
}

size_t tcg_extend_cmd(uint8_t *cmd, size_t cap, unsigned pcr, const struct tcg_digests *d)
{
	size_t len = TPM_HEADER_BYTES + 8 + TPM_PW_AUTH_BYTES + 4;

	for (unsigned i = 0; i < d->n; i++)
		len += 2 + tcg_digest_size(d->alg[i]);
	if (len > cap)
		return 0;
	uint8_t *p = put16(cmd, TPM_ST_SESSIONS);
	p = put32(p, (uint32_t)len);
	p = put32(p, TPM_CC_PCR_EXTEND);
	p = put32(p, pcr);
	p = put32(p, TPM_PW_AUTH_BYTES);
	p = put32(p, TPM_RS_PW);
	p = put16(p, 0);          /* nonce */
	*p++ = 1;                 /* continueSession */
	p = put16(p, 0);          /* password */
	p = put32(p, d->n);
	for (unsigned i = 0; i < d->n; i++) {
		p = put16(p, d->alg[i]);
		memcpy(p, d->d[i], tcg_digest_size(d->alg[i]));
		p += tcg_digest_size(d->alg[i]);
	}
	return len;
}

/* The Spec ID event's algorithm table, from the log's first (TCG_PCR_EVENT) entry. */
static int read_spec_id(struct tcg_log *l, size_t *next)
{
	const uint8_t *a = l->area;

	if (l->size < LOG_V1_HEADER || le32_load(a + 4) != EV_NO_ACTION)
		return AS_EUNSUPP;
	uint32_t n = le32_load(a + 28);
	if (n > l->size - LOG_V1_HEADER || n < 28 ||
	    memcmp(a + LOG_V1_HEADER, SPEC_ID_SIGNATURE, sizeof SPEC_ID_SIGNATURE))
		return AS_EUNSUPP;
	const uint8_t *e = a + LOG_V1_HEADER;
	uint32_t count = le32_load(e + 24);
	if (count == 0 || count > TCG_MAX_BANKS || 28 + 4 * (size_t)count > n)
		return AS_ECORRUPT;
	l->nalg = count;
	for (uint32_t i = 0; i < count; i++) {
		l->alg[i] = le16_load(e + 28 + 4 * i);
		l->alg_size[i] = le16_load(e + 30 + 4 * i);
		if (!l->alg_size[i] || l->alg_size[i] > TCG_MAX_DIGEST)
			return AS_ECORRUPT;
	}
	*next = LOG_V1_HEADER + n;
	return 0;
}

/* The size of the TCG_PCR_EVENT2 at off, or 0 when none parses there (zeros: the end). */
static size_t entry_size(const struct tcg_log *l, size_t off)
{
	const uint8_t *a = l->area;
	size_t at = off + 12;

	if (l->size - off < 12 || le32_load(a + off) > 31)
		return 0;
	uint32_t count = le32_load(a + off + 8);
	if (count == 0 || count > TCG_MAX_BANKS)
		return 0;
	for (uint32_t i = 0; i < count; i++) {
		unsigned k = 0;
		if (l->size - at < 2)
			return 0;
		while (k < l->nalg && l->alg[k] != le16_load(a + at))
			k++;
		if (k == l->nalg || l->size - at - 2 < l->alg_size[k])
			return 0;
		at += 2 + l->alg_size[k];
	}
	if (l->size - at < 4 || le32_load(a + at) > l->size - at - 4)
		return 0;
	return at + 4 + le32_load(a + at) - off;
}

int tcg_log_open(struct tcg_log *l, uint8_t *area, size_t size, size_t last)
{
	size_t at, n;
	int rc;

	l->area = area;
	l->size = size;
	if ((rc = read_spec_id(l, &at)))
		return rc;
	if (last >= at) {
		if (last >= size || !entry_size(l, last))
			return AS_ECORRUPT;
		at = last;
	}
	while ((n = entry_size(l, at)))
		at += n;
	l->end = at;
	return 0;
}

int tcg_log_append(struct tcg_log *l, unsigned pcr, uint32_t type, const struct tcg_digests *d,
		   const void *event, size_t event_len)
{
	size_t len = 12 + 4 + event_len;
	unsigned pick[TCG_MAX_BANKS];

	for (unsigned k = 0; k < l->nalg; k++) {
		unsigned i = 0;
		while (i < d->n && d->alg[i] != l->alg[k])
			i++;
		if (i == d->n || tcg_digest_size(d->alg[i]) != l->alg_size[k])
			return AS_EINVAL;
		pick[k] = i;
		len += 2 + l->alg_size[k];
	}
	if (len > l->size - l->end)
		return AS_ENOSPC;
	uint8_t *p = l->area + l->end;
	le32_store(p, pcr);
	le32_store(p + 4, type);
	le32_store(p + 8, l->nalg);
	p += 12;
	for (unsigned k = 0; k < l->nalg; k++) {
		le16_store(p, l->alg[k]);
		memcpy(p + 2, d->d[pick[k]], l->alg_size[k]);
		p += 2 + l->alg_size[k];
	}
	le32_store(p, (uint32_t)event_len);
	memcpy(p + 4, event, event_len);
	l->end += len;
	/* the log ends at the first entry that does not parse: make sure one follows, whatever the
	 * area held there (the firmware zeroes it, but a reader must not take old bytes for ours) */
	memset(l->area + l->end, 0, l->size - l->end < 12 ? l->size - l->end : 12);
	return 0;
}
