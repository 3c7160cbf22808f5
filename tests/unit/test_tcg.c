/* SPDX-License-Identifier: BSD-2-Clause */
/* Measured boot without a firmware that does it (common/tcg.h, stage2 under SeaBIOS): each PCR
 * bank's hash against NIST's CAVP files (SHA-1, SHA-384, SHA-512 as Debian's
 * python3-cryptography-vectors ships them), a digest over two pieces equal to the whole, the
 * TPM 2.0 commands byte for byte, GetCapability responses (good, short, an algorithm stage2
 * cannot hash), and the crypto-agile event log: opened after the firmware's last entry and any
 * appended after it, appended to within its area, refused when it is not a TPM 2.0 log. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/tcg.h"

#define CAVP "/usr/lib/python3/dist-packages/cryptography_vectors/hashes/"

static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = strlen(s) / 2;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

/* Every "Len / Msg / MD" of a CAVP file through tcg_hash with bank alg, the message also split
 * in two at its middle; returns how many were checked. */
static unsigned run_rsp(const char *path, uint16_t alg)
{
	struct tcg_banks b = { 1, { alg } };
	static struct tcg_digests d, d2;
	size_t size, mlen = 0;
	char *text = (char *)read_file(path, &size);
	uint8_t *msg = NULL, want[TCG_MAX_DIGEST];
	unsigned checked = 0;
	long bits = -1;

	if (!text)
		fail_msg("cannot read %s (Debian package python3-cryptography-vectors)", path);
	text = realloc(text, size + 1);
	text[size] = 0;
	for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
		if (!strncmp(line, "Len = ", 6)) {
			bits = atol(line + 6);
		} else if (!strncmp(line, "Msg = ", 6)) {
			free(msg);
			msg = malloc(strlen(line) / 2 + 1);
			unhex(line + 6, msg);
			mlen = (size_t)bits / 8;
		} else if (!strncmp(line, "MD = ", 5)) {
			assert_int_equal(unhex(line + 5, want), tcg_digest_size(alg));
			tcg_hash(&b, msg, mlen, NULL, 0, &d);
			tcg_hash(&b, msg, mlen / 2, msg + mlen / 2, mlen - mlen / 2, &d2);
			if (memcmp(d.d[0], want, tcg_digest_size(alg)) ||
			    memcmp(d2.d[0], want, tcg_digest_size(alg)))
				fail_msg("%s: %zu-byte message hashes wrong", path, mlen);
			checked++;
		}
	}
	free(msg);
	free(text);
	return checked;
}

static void test_hashes(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		uint16_t alg;
		unsigned n;
	} files[] = {
		{ CAVP "SHA1/SHA1ShortMsg.rsp", TCG_ALG_SHA1, 65 },
		{ CAVP "SHA1/SHA1LongMsg.rsp", TCG_ALG_SHA1, 64 },
		{ CAVP "SHA2/SHA256ShortMsg.rsp", TCG_ALG_SHA256, 65 },
		{ CAVP "SHA2/SHA384ShortMsg.rsp", TCG_ALG_SHA384, 129 },
		{ CAVP "SHA2/SHA384LongMsg.rsp", TCG_ALG_SHA384, 128 },
		{ CAVP "SHA2/SHA512ShortMsg.rsp", TCG_ALG_SHA512, 129 },
		{ CAVP "SHA2/SHA512LongMsg.rsp", TCG_ALG_SHA512, 128 },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(files); i++)
		assert_int_equal(run_rsp(files[i].file, files[i].alg), files[i].n);
	assert_int_equal(tcg_digest_size(0x0012), 0);   /* SM3: not one stage2 computes */
}

/* A GetCapability(TPM_CAP_PCRS) response: banks given as (alg, select byte 0..2). */
static size_t getcap_rsp(uint8_t *r, unsigned n, const uint16_t *alg, const uint8_t (*sel)[3])
{
	size_t len = 10 + 5 + 4 + n * 6;
	memset(r, 0, len);
	r[0] = 0x80, r[1] = 0x01;
	r[4] = (uint8_t)(len >> 8), r[5] = (uint8_t)len;
	r[14] = 5;                     /* capability TPM_CAP_PCRS */
	r[18] = (uint8_t)n;            /* count */
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = r + 19 + 6 * i;
		p[0] = (uint8_t)(alg[i] >> 8), p[1] = (uint8_t)alg[i], p[2] = 3;
		memcpy(p + 3, sel[i], 3);
	}
	return len;
}

static void test_getcap(void **state)
{
	(void)state;
	uint8_t cmd[TCG_GETCAP_CMD_BYTES], r[128];
	static const uint8_t want_cmd[] = { 0x80, 0x01, 0, 0, 0, 22, 0, 0, 0x01, 0x7A, 0, 0, 0, 5,
					    0, 0, 0, 0, 0, 0, 0, 8 };
	static const uint16_t algs[] = { TCG_ALG_SHA1, TCG_ALG_SHA256, TCG_ALG_SHA384, 0x0012 };
	static const uint8_t all[][3] = { { 0xFF, 0xFF, 0xFF }, { 0xFF, 0xFF, 0xFF },
					  { 0x00, 0x00, 0x00 }, { 0x00, 0x10, 0x00 } };
	struct tcg_banks b;
	uint32_t rc;

	tcg_getcap_pcrs_cmd(cmd);
	assert_memory_equal(cmd, want_cmd, sizeof want_cmd);
	/* sha384 selects no PCR; SM3 only PCR 12 */
	size_t len = getcap_rsp(r, 4, algs, all);
	assert_int_equal(tcg_getcap_pcrs_parse(r, len, 5, &b, &rc), 0);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.alg[0], TCG_ALG_SHA1);
	assert_int_equal(b.alg[1], TCG_ALG_SHA256);
	assert_int_equal(tcg_getcap_pcrs_parse(r, len, 12, &b, &rc), AS_EUNSUPP);
	assert_int_equal(rc, 0x0012);
	assert_int_equal(tcg_getcap_pcrs_parse(r, len - 1, 5, &b, &rc), AS_ECORRUPT);
	r[5] = (uint8_t)(len - 2);     /* the header's size cut: the last bank runs out */
	assert_int_equal(tcg_getcap_pcrs_parse(r, len - 2, 5, &b, &rc), AS_ECORRUPT);
	r[5] = (uint8_t)len;
	r[9] = 0x84;                   /* a failed command */
	assert_int_equal(tcg_getcap_pcrs_parse(r, len, 5, &b, &rc), AS_ECORRUPT);
	assert_int_equal(rc, 0x84);
}

static void test_extend_cmd(void **state)
{
	(void)state;
	struct tcg_digests d = { .n = 2, .alg = { TCG_ALG_SHA1, TCG_ALG_SHA256 } };
	uint8_t cmd[128];
	static const uint8_t head[] = { 0x80, 0x02, 0, 0, 0, 87, 0, 0, 0x01, 0x82, 0, 0, 0, 12,
					0, 0, 0, 9, 0x40, 0, 0, 9, 0, 0, 1, 0, 0, 0, 0, 0, 2,
					0, 4 };

	memset(d.d[0], 0x11, 20);
	memset(d.d[1], 0x22, 32);
	assert_int_equal(tcg_extend_cmd(cmd, sizeof cmd, 12, &d), 87);
	assert_memory_equal(cmd, head, sizeof head);
	assert_int_equal(cmd[33], 0x11);
	assert_int_equal(cmd[52], 0x11);
	assert_int_equal(cmd[53], 0);
	assert_int_equal(cmd[54], 0x0B);
	assert_int_equal(cmd[55], 0x22);
	assert_int_equal(cmd[86], 0x22);
	assert_int_equal(tcg_extend_cmd(cmd, 86, 12, &d), 0);
}

/* A log area: the Spec ID event for sha1 and sha256, then one firmware entry. */
static size_t make_log(uint8_t *a, size_t size)
{
	memset(a, 0, size);
	le32_store(a + 4, 3);                          /* EV_NO_ACTION */
	le32_store(a + 28, 37);
	memcpy(a + 32, "Spec ID Event03", 16);
	le32_store(a + 32 + 24, 2);
	le16_store(a + 32 + 28, TCG_ALG_SHA1), le16_store(a + 32 + 30, 20);
	le16_store(a + 32 + 32, TCG_ALG_SHA256), le16_store(a + 32 + 34, 32);
	size_t e = 32 + 37;
	le32_store(a + e, 4), le32_store(a + e + 4, 0x80000001), le32_store(a + e + 8, 2);
	le16_store(a + e + 12, TCG_ALG_SHA1), le16_store(a + e + 34, TCG_ALG_SHA256);
	le32_store(a + e + 68, 3);
	memcpy(a + e + 72, "abc", 3);
	return e;
}

static void test_log(void **state)
{
	(void)state;
	static uint8_t a[400];
	struct tcg_digests d = { .n = 2, .alg = { TCG_ALG_SHA256, TCG_ALG_SHA1 } }; /* not in the log's order */
	struct tcg_log l;
	size_t first = make_log(a, sizeof a), end = first + 75;

	memset(d.d[0], 0xBB, 32);
	memset(d.d[1], 0xAA, 20);
	assert_int_equal(tcg_log_open(&l, a, sizeof a, first), 0);
	assert_int_equal(l.end, end);
	assert_int_equal(tcg_log_append(&l, 12, 0x0D, &d, "hi", 3), 0);
	assert_int_equal(l.end, end + 12 + 22 + 34 + 4 + 3);
	assert_int_equal(le32_load(a + end), 12);
	assert_int_equal(le32_load(a + end + 4), 0x0D);
	assert_int_equal(le32_load(a + end + 8), 2);
	assert_int_equal(le16_load(a + end + 12), TCG_ALG_SHA1);
	assert_int_equal(a[end + 14], 0xAA);
	assert_int_equal(le16_load(a + end + 34), TCG_ALG_SHA256);
	assert_int_equal(a[end + 36], 0xBB);
	assert_string_equal((const char *)a + end + 72, "hi");
	/* Opened again from the firmware's last entry: after what was appended since. */
	size_t mine = l.end;
	assert_int_equal(tcg_log_open(&l, a, sizeof a, first), 0);
	assert_int_equal(l.end, mine);
	/* Only the Spec ID event (the firmware's last entry at offset 0). */
	assert_int_equal(tcg_log_open(&l, a, sizeof a, 0), 0);
	assert_int_equal(l.end, mine);
	/* Full: the area's end; a digest the log wants is missing. */
	while (!tcg_log_append(&l, 9, 0x0D, &d, "x", 2))
		assert_true(l.end <= sizeof a);
	assert_int_equal(tcg_log_append(&l, 9, 0x0D, &d, "x", 2), AS_ENOSPC);
	d.n = 1;
	assert_int_equal(tcg_log_append(&l, 9, 0x0D, &d, "", 1), AS_EINVAL);
	/* last not on an entry; not a crypto-agile log; an entry running past the area */
	assert_int_equal(tcg_log_open(&l, a, sizeof a, first + 1), AS_ECORRUPT);
	make_log(a, sizeof a);
	assert_int_equal(tcg_log_open(&l, a, first + 74, first), AS_ECORRUPT);
	a[32] = 'X';
	assert_int_equal(tcg_log_open(&l, a, sizeof a, first), AS_EUNSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hashes),
		cmocka_unit_test(test_getcap),
		cmocka_unit_test(test_extend_cmd),
		cmocka_unit_test(test_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
