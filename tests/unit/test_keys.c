/* SPDX-License-Identifier: BSD-2-Clause */
/* The serial-terminal key decoder (common/keys.c): byte strings as terminals send them, each
 * with the keys it must give. */
#include "tests/unit/helpers.h"

#include <string.h>

#include "common/bits.h"
#include "common/keys.h"

/* Feeds bytes, collecting keys (held ones too); then a timeout, as a quiet line gives. */
static unsigned decode(const char *bytes, size_t n, int *out, unsigned max)
{
	struct key_decoder d;
	unsigned k = 0;
	int key;

	memset(&d, 0, sizeof d);
	for (size_t i = 0; i < n; i++) {
		if ((key = key_feed(&d, (unsigned char)bytes[i])) && k < max)
			out[k++] = key;
		while ((key = key_feed(&d, -1)) && k < max)
			out[k++] = key;
	}
	if ((key = key_timeout(&d)) && k < max)
		out[k++] = key;
	return k;
}

#define EXPECT(bytes, ...)                                                                   \
	do {                                                                                 \
		static const int want[] = { __VA_ARGS__ };                                   \
		int got[16];                                                                 \
		unsigned n = decode(bytes, sizeof(bytes) - 1, got, 16);                      \
		assert_int_equal(n, ARRAY_SIZE(want));                                       \
		for (unsigned i = 0; i < n; i++)                                             \
			if (got[i] != want[i])                                               \
				fail_msg("%s: key %u is 0x%x, want 0x%x", #bytes, i, got[i], \
					 want[i]);                                           \
	} while (0)

static void test_plain_bytes(void **state)
{
	(void)state;
	EXPECT("aZ 9~", 'a', 'Z', ' ', '9', '~');
	EXPECT("\r", KEY_ENTER);
	EXPECT("\n", KEY_ENTER);
	EXPECT("\r\n", KEY_ENTER);          /* CR LF is one Enter */
	EXPECT("\r\r", KEY_ENTER, KEY_ENTER);
	EXPECT("\n\n", KEY_ENTER, KEY_ENTER);
	EXPECT("\x08\x7f", KEY_BACKSPACE, KEY_BACKSPACE);
	EXPECT("\x01\t\x80\xff" "b", 'b'); /* other controls and 8-bit bytes are nothing */
}

static void test_csi_sequences(void **state)
{
	(void)state;
	EXPECT("\x1b[A\x1b[B\x1b[C\x1b[D", KEY_UP, KEY_DOWN, KEY_RIGHT, KEY_LEFT);
	EXPECT("\x1b[H\x1b[F", KEY_HOME, KEY_END);
	EXPECT("\x1b[1~\x1b[4~\x1b[3~", KEY_HOME, KEY_END, KEY_DELETE);
	EXPECT("\x1b[7~\x1b[8~", KEY_HOME, KEY_END);  /* rxvt */
	EXPECT("\x1b[2~\x1b[5~\x1b[6~x", 'x');        /* Insert, PgUp, PgDn: nothing */
	EXPECT("\x1b[1;5C\x1b[1;2H", KEY_RIGHT, KEY_HOME); /* modifiers ignored */
	EXPECT("\x1b[3;5~", KEY_DELETE);
	EXPECT("\x1b[Zq", 'q');                      /* Shift-Tab: nothing */
}

static void test_ss3_sequences(void **state)
{
	(void)state;
	EXPECT("\x1bOA\x1bOB\x1bOC\x1bOD", KEY_UP, KEY_DOWN, KEY_RIGHT, KEY_LEFT);
	EXPECT("\x1bOH\x1bOF", KEY_HOME, KEY_END);
	EXPECT("\x1bOPz", 'z');  /* F1: nothing */
}

static void test_escape_alone(void **state)
{
	(void)state;
	EXPECT("\x1b", KEY_ESC);                   /* then the line is quiet */
	EXPECT("\x1b" "e", KEY_ESC, 'e');          /* ESC then a key: both */
	EXPECT("\x1b\r", KEY_ESC, KEY_ENTER);
	EXPECT("\x1b\x1b[A", KEY_ESC, KEY_UP);
}

/* A cut sequence is dropped, and the decoder is ready for the next key. */
static void test_cut_and_overlong(void **state)
{
	(void)state;
	struct key_decoder d;
	memset(&d, 0, sizeof d);
	assert_int_equal(key_feed(&d, 0x1b), KEY_NONE);
	assert_true(key_partial(&d));
	assert_int_equal(key_feed(&d, '['), KEY_NONE);
	assert_int_equal(key_feed(&d, '1'), KEY_NONE);
	assert_int_equal(key_timeout(&d), KEY_NONE);
	assert_false(key_partial(&d));
	assert_int_equal(key_feed(&d, 'a'), 'a');
	/* 40 parameter bytes: swallowed with their final byte, then the line works again */
	assert_int_equal(key_feed(&d, 0x1b), KEY_NONE);
	assert_int_equal(key_feed(&d, '['), KEY_NONE);
	for (int i = 0; i < 40; i++)
		assert_int_equal(key_feed(&d, '1'), KEY_NONE);
	assert_int_equal(key_feed(&d, 'A'), KEY_NONE);
	assert_false(key_partial(&d));
	assert_int_equal(key_feed(&d, 'b'), 'b');
	/* a control byte inside a sequence ends it */
	assert_int_equal(key_feed(&d, 0x1b), KEY_NONE);
	assert_int_equal(key_feed(&d, '['), KEY_NONE);
	assert_int_equal(key_feed(&d, 0x03), KEY_NONE);
	assert_false(key_partial(&d));
	/* a huge parameter does not overflow */
	assert_int_equal(key_feed(&d, 0x1b), KEY_NONE);
	assert_int_equal(key_feed(&d, '['), KEY_NONE);
	for (int i = 0; i < 10; i++)
		key_feed(&d, '9');
	assert_int_equal(key_feed(&d, '~'), KEY_NONE);
	assert_int_equal(key_feed(&d, '\r'), KEY_ENTER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_bytes),
		cmocka_unit_test(test_csi_sequences),
		cmocka_unit_test(test_ss3_sequences),
		cmocka_unit_test(test_escape_alone),
		cmocka_unit_test(test_cut_and_overlong),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
