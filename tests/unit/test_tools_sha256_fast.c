/* SPDX-License-Identifier: BSD-2-Clause */
/* The host's fast SHA-256 (tools/base/sha256_fast.c, libcrypto) gives common/sha256.c's digests:
 * FIPS 180-4's examples, every length 0..300 (the padding's edges at 55, 56 and 64), a message
 * fed in pieces cut anywhere, and a host file through hashfile.c (a file on a FAT:
 * test_fat_sha256.c). */
#include "tests/unit/helpers.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sha256.h"
#include "tools/base/sha256_fast.h"
#include "tools/esp/hashfile.h"

static void fast(const void *buf, size_t len, uint8_t out[SHA256_BYTES])
{
	struct sha256_fast s;
	sha256_fast_init(&s);
	sha256_fast_update(&s, buf, len);
	sha256_fast_final(&s, out);
}

static void test_vectors(void **state)
{
	(void)state;
	uint8_t d[SHA256_BYTES];
	char hex[SHA256_HEX_LEN + 1];

	fast("abc", 3, d);
	sha256_hex(d, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	fast("", 0, d);
	sha256_hex(d, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static uint8_t *pattern(size_t len)
{
	uint8_t *buf = malloc(len);
	uint32_t x = 0x9E3779B9u;
	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	return buf;
}

static void test_same_as_common(void **state)
{
	(void)state;
	uint8_t *buf = pattern(300), a[SHA256_BYTES], b[SHA256_BYTES];

	for (size_t len = 0; len <= 300; len++) {
		fast(buf, len, a);
		sha256(buf, len, b);
		assert_memory_equal(a, b, SHA256_BYTES);
	}
	for (size_t cut = 0; cut <= 300; cut++) {
		struct sha256_fast s;
		sha256_fast_init(&s);
		sha256_fast_update(&s, buf, cut);
		sha256_fast_update(&s, buf + cut, 300 - cut);
		sha256_fast_final(&s, a);
		assert_memory_equal(a, b, SHA256_BYTES);
	}
	free(buf);
}

/* A host file longer than hashfile.c's 1 MiB piece, not a multiple of it. */
static void test_host_file(void **state)
{
	(void)state;
	size_t len = (3u << 20) + 1234;
	uint8_t *buf = pattern(len), a[SHA256_BYTES], b[SHA256_BYTES];
	char path[] = "/tmp/anysector-sha256-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	assert_int_equal(hash_host_file(path, a), 0);
	sha256(buf, len, b);
	assert_memory_equal(a, b, SHA256_BYTES);
	unlink(path);
	assert_int_not_equal(hash_host_file(path, a), 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_same_as_common),
		cmocka_unit_test(test_host_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
