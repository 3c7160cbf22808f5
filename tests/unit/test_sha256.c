/* SPDX-License-Identifier: BSD-2-Clause */
/* SHA-256 (common/sha256.c) against NIST's own vectors: the CAVP byte-oriented ShortMsg, LongMsg
 * and Monte Carlo files (SHAVS) as Debian's python3-cryptography-vectors ships them, the FIPS 180-4
 * examples and the million-'a' message; pieces fed in every split agree with the whole. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sha256.h"

/* Debian 12's python3-cryptography-vectors (tools/deps.sh), NIST's files unchanged. */
#define CAVP_DIR "/usr/lib/python3/dist-packages/cryptography_vectors/hashes/SHA2/"

static void hex_digest(const char *hex, uint8_t out[SHA256_BYTES])
{
	assert_true(sha256_from_hex(hex, strlen(hex), out));
}

static void assert_digest(const void *msg, size_t len, const char *hex)
{
	uint8_t want[SHA256_BYTES], got[SHA256_BYTES];
	char text[SHA256_HEX_LEN + 1];
	hex_digest(hex, want);
	sha256(msg, len, got);
	sha256_hex(got, text);
	if (memcmp(got, want, SHA256_BYTES))
		fail_msg("%zu-byte message: SHA-256 %s, NIST says %s", len, text, hex);
}

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

/* Each "Len = bits / Msg = hex / MD = hex" triple of a .rsp file; returns how many were checked. */
static unsigned run_rsp(const char *name, unsigned expect)
{
	char path[256];
	snprintf(path, sizeof path, CAVP_DIR "%s", name);
	size_t size;
	char *text = (char *)read_file(path, &size);
	if (!text)
		fail_msg("cannot read %s (Debian package python3-cryptography-vectors)", path);
	text = realloc(text, size + 1);
	text[size] = 0;

	unsigned checked = 0;
	long bits = -1;
	uint8_t *msg = NULL;
	size_t mlen = 0;
	for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
		if (!strncmp(line, "Len = ", 6)) {
			bits = atol(line + 6);
		} else if (!strncmp(line, "Msg = ", 6)) {
			free(msg);
			msg = malloc(strlen(line) / 2 + 1);
			mlen = unhex(line + 6, msg);
			assert_true(bits >= 0 && (size_t)bits / 8 <= mlen && bits % 8 == 0);
			mlen = (size_t)bits / 8;   /* "Len = 0" comes with "Msg = 00" */
		} else if (!strncmp(line, "MD = ", 5)) {
			assert_non_null(msg);
			assert_digest(msg, mlen, line + 5);
			checked++;
			bits = -1;
		}
	}
	free(msg);
	free(text);
	assert_int_equal(checked, expect);
	return checked;
}

static void test_cavp_short(void **state)
{
	(void)state;
	run_rsp("SHA256ShortMsg.rsp", 65);   /* 0 to 64 bytes */
}

static void test_cavp_long(void **state)
{
	(void)state;
	run_rsp("SHA256LongMsg.rsp", 64);    /* 163 to 6400 bytes */
}

/* SHAVS 6.4: 100 checkpoints, each the last of 1000 chained hashes of three digests. */
static void test_cavp_monte(void **state)
{
	(void)state;
	size_t size;
	char *text = (char *)read_file(CAVP_DIR "SHA256Monte.rsp", &size);
	assert_non_null(text);
	text = realloc(text, size + 1);
	text[size] = 0;

	uint8_t seed[SHA256_BYTES], md[3][SHA256_BYTES], m[3 * SHA256_BYTES];
	unsigned count = 0;
	for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
		if (!strncmp(line, "Seed = ", 7)) {
			hex_digest(line + 7, seed);
		} else if (!strncmp(line, "MD = ", 5)) {
			for (unsigned i = 0; i < 3; i++)
				memcpy(md[i], seed, SHA256_BYTES);
			for (unsigned i = 3; i < 1003; i++) {
				memcpy(m, md[0], SHA256_BYTES);
				memcpy(m + SHA256_BYTES, md[1], SHA256_BYTES);
				memcpy(m + 2 * SHA256_BYTES, md[2], SHA256_BYTES);
				memmove(md[0], md[1], 2 * SHA256_BYTES);
				sha256(m, sizeof m, md[2]);
			}
			memcpy(seed, md[2], SHA256_BYTES);
			uint8_t want[SHA256_BYTES];
			hex_digest(line + 5, want);
			assert_memory_equal(seed, want, SHA256_BYTES);
			count++;
		}
	}
	free(text);
	assert_int_equal(count, 100);
}

/* FIPS 180-4's examples (NIST's SHA256.pdf) and the one-million-'a' message. */
static void test_fips_examples(void **state)
{
	(void)state;
	assert_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	assert_digest(two, strlen(two),
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	assert_digest("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

	size_t n = 1000000;
	char *a = malloc(n);
	memset(a, 'a', n);
	assert_digest(a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* the same fed in uneven pieces */
	struct sha256 s;
	uint8_t got[SHA256_BYTES], want[SHA256_BYTES];
	sha256_init(&s);
	for (size_t off = 0, step = 1; off < n; off += step, step = step * 3 % 997 + 1)
		sha256_update(&s, a + off, off + step > n ? n - off : step);
	sha256_final(&s, got);
	hex_digest("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", want);
	assert_memory_equal(got, want, SHA256_BYTES);
	free(a);
}

/* Every split of messages around the block and padding boundaries (55, 56, 63, 64, 119 bytes...)
 * gives the one-shot digest; final leaves the state ready for a new message. */
static void test_pieces(void **state)
{
	(void)state;
	uint8_t msg[200];
	for (size_t i = 0; i < sizeof msg; i++)
		msg[i] = (uint8_t)(i * 7 + 3);
	for (size_t len = 0; len <= sizeof msg; len++) {
		uint8_t whole[SHA256_BYTES], piece[SHA256_BYTES];
		sha256(msg, len, whole);
		for (size_t cut = 0; cut <= len; cut += len < 130 ? 1 : 17) {
			struct sha256 s;
			sha256_init(&s);
			sha256_update(&s, msg, cut);
			sha256_update(&s, msg + cut, 0);
			sha256_update(&s, msg + cut, len - cut);
			sha256_final(&s, piece);
			assert_memory_equal(whole, piece, SHA256_BYTES);
			sha256_update(&s, msg, len);
			sha256_final(&s, piece);
			assert_memory_equal(whole, piece, SHA256_BYTES);
		}
	}
}

static void test_hex(void **state)
{
	(void)state;
	uint8_t d[SHA256_BYTES], back[SHA256_BYTES];
	char text[SHA256_HEX_LEN + 1];
	for (unsigned i = 0; i < SHA256_BYTES; i++)
		d[i] = (uint8_t)(i * 37 + 0xA5);
	sha256_hex(d, text);
	assert_int_equal(strlen(text), SHA256_HEX_LEN);
	assert_string_equal(text, "a5caef14395e83a8cdf2173c6186abd0f51a3f6489aed3f81d42678cb1d6fb20");
	/* upper case is read too; a wrong length or a non-hex digit anywhere is refused */
	assert_true(sha256_from_hex("A5CAEF14395E83A8CDF2173C6186ABD0F51A3F6489AED3F81D42678CB1D6FB20",
				    SHA256_HEX_LEN, back));
	assert_memory_equal(d, back, SHA256_BYTES);
	assert_false(sha256_from_hex(text, SHA256_HEX_LEN - 1, back));
	assert_false(sha256_from_hex(text, SHA256_HEX_LEN + 1, back));
	for (unsigned i = 0; i < SHA256_HEX_LEN; i++) {
		char bad[SHA256_HEX_LEN + 1];
		memcpy(bad, text, sizeof bad);
		bad[i] = i % 3 == 0 ? 'g' : i % 3 == 1 ? ' ' : '/';
		assert_false(sha256_from_hex(bad, SHA256_HEX_LEN, back));
	}
	assert_true(sha256_from_hex(text, SHA256_HEX_LEN, back));
	assert_memory_equal(d, back, SHA256_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cavp_short),  cmocka_unit_test(test_cavp_long),
		cmocka_unit_test(test_cavp_monte),  cmocka_unit_test(test_fips_examples),
		cmocka_unit_test(test_pieces),      cmocka_unit_test(test_hex),
	};
	return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}
