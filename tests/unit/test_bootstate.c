/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot state block's format (common/bootstate.c): a copy is taken only whole (magic,
 * version, size, CRC, well-formed records), the newer valid copy of two wins and a damaged one
 * leaves the other, records are set, replaced, found without case and removed, and a copy
 * that is full refuses a record without changing. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <string.h>

#include "common/bootstate.h"
#include "common/errors.h"
#include "common/le.h"

static uint8_t a[BSTATE_COPY_BYTES], b[BSTATE_COPY_BYTES];

static void test_empty_state_is_valid(void **state)
{
	(void)state;
	bstate_init(a, 7);
	assert_true(bstate_valid(a));
	assert_memory_equal(a, "ANYSTATE", 8);
	assert_int_equal(le32_load(a + BSTATE_VERSION_OFF), 1);
	assert_int_equal(le32_load(a + BSTATE_SIZE_OFF), 4096);
	assert_int_equal(bstate_seq(a), 7);
	assert_null(bstate_next(a, NULL));
	assert_null(bstate_find(a, BSTATE_ONESHOT, NULL));
}

/* Every byte counts: one flipped bit anywhere makes the copy invalid. */
static void test_any_changed_byte_invalidates(void **state)
{
	(void)state;
	bstate_init(a, 1);
	assert_int_equal(bstate_set(a, BSTATE_TRIES, "new", 2, 0), 0);
	bstate_seal(a, 2);
	assert_true(bstate_valid(a));
	for (unsigned i = 0; i < BSTATE_COPY_BYTES; i += 97) {
		a[i] ^= 0x10;
		assert_false(bstate_valid(a));
		a[i] ^= 0x10;
	}
	assert_true(bstate_valid(a));
}

/* A record that runs past the copy, a type we do not know, an empty name: invalid even with a
 * CRC that matches. */
static void test_malformed_records_refused(void **state)
{
	(void)state;
	static const uint8_t bad[][4] = { { 9, 1, 0, 0 }, { BSTATE_TRIES, 0, 1, 0 } };
	for (unsigned k = 0; k < 2; k++) {
		bstate_init(a, 1);
		memcpy(a + BSTATE_RECORDS_OFF, bad[k], 4);
		a[BSTATE_RECORDS_OFF + 4] = 'x';
		bstate_seal(a, 1);
		assert_false(bstate_valid(a));
	}
	bstate_init(a, 1);
	/* records filling the copy up to a last one whose name would run past its end */
	unsigned p = BSTATE_RECORDS_OFF;
	while (p + BSTATE_REC_HEAD + 200 <= BSTATE_COPY_BYTES) {
		a[p] = BSTATE_TRIES, a[p + 1] = 200;
		memset(a + p + 4, 'n', 200);
		p += BSTATE_REC_HEAD + 200;
	}
	a[p] = BSTATE_TRIES, a[p + 1] = (uint8_t)(BSTATE_COPY_BYTES - p - BSTATE_REC_HEAD + 1);
	bstate_seal(a, 1);
	assert_false(bstate_valid(a));
	a[p + 1]--;   /* exactly to the end: valid, no end marker needed */
	bstate_seal(a, 1);
	assert_true(bstate_valid(a));
}

static void test_pick_newer_valid_copy(void **state)
{
	(void)state;
	bstate_init(a, 5);
	bstate_init(b, 6);
	assert_int_equal(bstate_pick(a, b), 1);
	bstate_init(b, 4);
	assert_int_equal(bstate_pick(a, b), 0);
	bstate_init(b, 5);
	assert_int_equal(bstate_pick(a, b), 0);   /* a tie: copy 0 */
	/* a torn write: the newer copy half written is not taken, the older one is */
	bstate_init(b, 9);
	memset(b + BSTATE_COPY_BYTES / 2, 0, BSTATE_COPY_BYTES / 2);
	b[100] = 1;
	assert_int_equal(bstate_pick(a, b), 0);
	memset(a, 0, sizeof a);
	assert_int_equal(bstate_pick(a, b), -1);
	bstate_init(b, 1);
	assert_int_equal(bstate_pick(a, b), 1);
}

static void test_set_find_replace_remove(void **state)
{
	(void)state;
	char name[BSTATE_NAME_MAX + 1];
	bstate_init(a, 1);
	assert_int_equal(bstate_set(a, BSTATE_TRIES, "debian", 3, 0), 0);
	assert_int_equal(bstate_set(a, BSTATE_ONESHOT, "rescue", 0, 0), 0);
	assert_int_equal(bstate_set(a, BSTATE_TRIES, "new-kernel", 2, 1), 0);
	/* a one-shot replaces the one-shot whatever its name; tries replace the same name's */
	assert_int_equal(bstate_set(a, BSTATE_ONESHOT, "other", 0, 0), 0);
	assert_int_equal(bstate_set(a, BSTATE_TRIES, "DEBIAN", 1, 2), 0);
	bstate_seal(a, 2);
	assert_true(bstate_valid(a));
	uint8_t *r = bstate_find(a, BSTATE_ONESHOT, NULL);
	assert_non_null(r);
	assert_true(bstate_name(r, name, sizeof name));
	assert_string_equal(name, "other");
	r = bstate_find(a, BSTATE_TRIES, "Debian");
	assert_non_null(r);
	assert_int_equal(r[2], 1);
	assert_int_equal(r[3], 2);
	assert_true(bstate_name(r, name, sizeof name));
	assert_string_equal(name, "DEBIAN");
	assert_null(bstate_find(a, BSTATE_TRIES, "debia"));
	assert_null(bstate_find(a, BSTATE_TRIES, "debiann"));
	unsigned n = 0;
	for (r = bstate_next(a, NULL); r; r = bstate_next(a, r))
		n++;
	assert_int_equal(n, 3);
	bstate_remove(a, bstate_find(a, BSTATE_TRIES, "new-kernel"));
	bstate_seal(a, 3);
	assert_true(bstate_valid(a));
	assert_null(bstate_find(a, BSTATE_TRIES, "new-kernel"));
	assert_non_null(bstate_find(a, BSTATE_TRIES, "debian"));
	assert_false(bstate_name(bstate_find(a, BSTATE_TRIES, "debian"), name, 4));
}

static void test_full_copy_refuses(void **state)
{
	(void)state;
	char name[300];
	bstate_init(a, 1);
	unsigned i = 0;
	for (;; i++) {
		snprintf(name, sizeof name, "%0250u", i);
		int rc = bstate_set(a, BSTATE_TRIES, name, 1, 0);
		if (rc) {
			assert_int_equal(rc, AS_ENOSPC);
			break;
		}
	}
	assert_int_equal(i, (BSTATE_COPY_BYTES - BSTATE_RECORDS_OFF) / (BSTATE_REC_HEAD + 250));
	memcpy(b, a, sizeof a);
	assert_int_equal(bstate_set(a, BSTATE_ONESHOT, name, 0, 0), AS_ENOSPC);
	assert_memory_equal(a, b, sizeof a);
	/* replacing a record of the same size still fits */
	snprintf(name, sizeof name, "%0250u", 0u);
	assert_int_equal(bstate_set(a, BSTATE_TRIES, name, 0, 5), 0);
	memset(name, 'x', sizeof name);
	name[256] = 0;   /* one byte more than a record holds */
	assert_int_equal(bstate_set(a, BSTATE_TRIES, name, 0, 5), AS_EINVAL);
	assert_int_equal(bstate_set(a, BSTATE_TRIES, "", 0, 5), AS_EINVAL);
	bstate_seal(a, 2);
	assert_true(bstate_valid(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_state_is_valid),
		cmocka_unit_test(test_any_changed_byte_invalidates),
		cmocka_unit_test(test_malformed_records_refused),
		cmocka_unit_test(test_pick_newer_valid_copy),
		cmocka_unit_test(test_set_find_replace_remove),
		cmocka_unit_test(test_full_copy_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
