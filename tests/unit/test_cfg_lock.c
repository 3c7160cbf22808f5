/* SPDX-License-Identifier: BSD-2-Clause */
/* The lock block of BOOTX64.EFI (common/cfg_lock.h): the block as built reads as not locked,
 * encode and parse agree, every malformed block is refused, the check takes the locked hash
 * and the one before it and refuses anything else with the one sentence; and the rule that a
 * locked menu pins every file (pin_first_missing). */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <string.h>

#include "common/bits.h"
#include "common/cfg_lock.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/pin.h"

/* sha256("abc") and sha256("") (FIPS 180-4's examples) */
static const char abc_hex[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char empty_hex[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static void hash_of(const char *hex, uint8_t out[SHA256_BYTES])
{
	assert_true(sha256_from_hex(hex, strlen(hex), out));
}

static void test_built_block(void **state)
{
	(void)state;
	uint8_t block[CFG_LOCK_BYTES] = { 0 };
	struct cfg_lock l;

	/* what efi/cfglock.c initialises: the magic and the version, the rest zero */
	memcpy(block, CFG_LOCK_MAGIC, CFG_LOCK_MAGIC_LEN);
	block[CFG_LOCK_VERSION_OFF] = CFG_LOCK_VERSION;
	assert_int_equal(cfg_lock_parse(block, sizeof block, &l), 0);
	assert_false(l.locked);
	assert_int_equal(l.nhashes, 0);
	uint8_t again[CFG_LOCK_BYTES];
	cfg_lock_encode(&l, again);
	assert_memory_equal(again, block, sizeof block);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct cfg_lock l = { .locked = true, .nhashes = 2 }, back;
	uint8_t block[CFG_LOCK_BYTES];

	hash_of(abc_hex, l.hash[0]);
	hash_of(empty_hex, l.hash[1]);
	cfg_lock_encode(&l, block);
	assert_int_equal(le32_load(block + CFG_LOCK_FLAGS_OFF), CFG_LOCK_LOCKED);
	assert_int_equal(le32_load(block + CFG_LOCK_COUNT_OFF), 2);
	assert_memory_equal(block + CFG_LOCK_HASH_OFF, l.hash[0], SHA256_BYTES);
	assert_int_equal(cfg_lock_parse(block, sizeof block, &back), 0);
	assert_true(back.locked);
	assert_int_equal(back.nhashes, 2);
	assert_memory_equal(back.hash, l.hash, sizeof l.hash);
}

static void test_bad_blocks(void **state)
{
	(void)state;
	struct cfg_lock l = { .locked = true, .nhashes = 1 }, out;
	uint8_t good[CFG_LOCK_BYTES], b[CFG_LOCK_BYTES];

	hash_of(abc_hex, l.hash[0]);
	cfg_lock_encode(&l, good);
	assert_int_equal(cfg_lock_parse(good, sizeof good - 1, &out), AS_ECORRUPT);
	static const struct {
		size_t off;
		uint32_t value;
	} breaks[] = {
		{ 0, 0x20796e61 ^ 1 },                       /* magic */
		{ CFG_LOCK_VERSION_OFF, 2 },                 /* another version */
		{ CFG_LOCK_FLAGS_OFF, 3 },                   /* a flag we do not know */
		{ CFG_LOCK_FLAGS_OFF, 0 },                   /* hashes without the flag */
		{ CFG_LOCK_COUNT_OFF, 0 },                   /* locked to no hash */
		{ CFG_LOCK_COUNT_OFF, CFG_LOCK_HASHES + 1 }, /* more than there is room for */
	};
	for (size_t i = 0; i < ARRAY_SIZE(breaks); i++) {
		memcpy(b, good, sizeof b);
		le32_store(b + breaks[i].off, breaks[i].value);
		assert_int_equal(cfg_lock_parse(b, sizeof b, &out), AS_ECORRUPT);
	}
}

static void test_check(void **state)
{
	(void)state;
	struct cfg_lock l = { .locked = true, .nhashes = 1 }, off = { 0 };
	uint8_t abc[SHA256_BYTES], empty[SHA256_BYTES];
	struct capture cap;

	hash_of(abc_hex, abc);
	hash_of(empty_hex, empty);
	memcpy(l.hash[0], abc, SHA256_BYTES);
	capture_init(&cap);
	assert_int_equal(cfg_lock_check(&off, empty, &cap.diag), 0);
	assert_int_equal(cfg_lock_check(&l, abc, &cap.diag), 0);
	assert_int_equal(cap.n, 0);
	assert_int_equal(cfg_lock_check(&l, empty, &cap.diag), AS_EDENIED);
	assert_int_equal(cap.n, 1);
	assert_string_equal(cap.items[0].msg,
			    "anysector.cfg (SHA-256 e3b0c442...) is not the configuration "
			    "BOOTX64.EFI is locked to (SHA-256 ba7816bf...), so nothing is booted");
	assert_string_equal(cap.items[0].code, "cfg.locked_mismatch");
	/* during a change the one before counts too, and only it */
	memcpy(l.hash[1], empty, SHA256_BYTES);
	l.nhashes = 2;
	capture_init(&cap);
	assert_int_equal(cfg_lock_check(&l, empty, &cap.diag), 0);
	abc[31] ^= 1;
	assert_int_equal(cfg_lock_check(&l, abc, &cap.diag), AS_EDENIED);
}

static void test_all_pinned(void **state)
{
	(void)state;
	struct cfg c;
	struct capture cap;
	char text[800];

	snprintf(text, sizeof text,
		 "entry a\n  kernel /k\n  sha256 %s\n  initrd /i\n  sha256 %s\n"
		 "entry b\n  kernel /k\n  sha256 %s\n  initrd /i\n  initrd /j\n  sha256 %s\n"
		 "entry c\n  chainload 1\n"
		 "entry d\n  efi /app.efi\n",
		 abc_hex, abc_hex, abc_hex, abc_hex);
	assert_int_equal(parse_cfg(text, &c, &cap), 0);
	assert_int_equal(pin_first_missing(&c.entries[0]), -1);
	assert_int_equal(pin_first_missing(&c.entries[1]), (int)PIN_INITRD); /* /i */
	assert_int_equal(pin_first_missing(&c.entries[2]), -1);              /* loads no file */
	assert_int_equal(pin_first_missing(&c.entries[3]), (int)PIN_KERNEL);

	/* what both loaders say of an entry a lock does not boot, and only under a lock */
	struct cfg_lock locked = { .locked = true, .nhashes = 1 }, open = { 0 };
	capture_init(&cap);
	assert_int_equal(cfg_lock_entry(&locked, &c.entries[0], &cap.diag), 0);
	assert_int_equal(cfg_lock_entry(&open, &c.entries[1], &cap.diag), 0);
	assert_int_equal(cap.n, 0);
	assert_int_equal(cfg_lock_entry(&locked, &c.entries[1], &cap.diag), AS_EDENIED);
	assert_int_equal(cap.n, 1);
	assert_string_equal(cap.items[0].code, "cfg.locked_unpinned");
	assert_string_equal(cap.items[0].msg, "entry b: anysector.cfg is locked, but /i has no "
			    "sha256 line, so it is not booted");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_built_block), cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_blocks),  cmocka_unit_test(test_check),
		cmocka_unit_test(test_all_pinned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
