/* SPDX-License-Identifier: BSD-2-Clause */
/* Pinned hashes: anysector.cfg's sha256 lines parse into the pin of the file on the key line
 * above them, every misplaced or malformed one is an error with its line, and the comparison
 * the loaders and check share refuses a differing file with the one sentence. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "common/errors.h"
#include "common/pin.h"
#include "common/sha256.h"

/* sha256("abc") and sha256("") (FIPS 180-4's examples) */
#define H_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define H_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static struct cfg cfg;

static int parse(const char *text, struct capture *cap)
{
	return parse_cfg(text, &cfg, cap);
}

static void test_pins_parse(void **state)
{
	(void)state;
	static const char text[] =
		"entry deb\n"
		"  kernel /deb/vmlinuz\n"
		"  sha256 " H_ABC "\n"
		"  initrd /deb/one.img\n"
		"  initrd /deb/two.img\n"
		"\n"
		"  # the second initrd's pin, after a blank and a comment line\n"
		"  SHA256 " "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855" "  # upper\n"
		"  cmdline quiet\n"
		"entry app\n"
		"  efi /EFI/app.efi\n"
		"  sha256 " H_EMPTY "\n"
		"entry plain\n"
		"  kernel /vmlinuz\n";
	struct capture cap;
	uint8_t abc[SHA256_BYTES], empty[SHA256_BYTES];
	sha256("abc", 3, abc);
	sha256("", 0, empty);

	assert_int_equal(parse(text, &cap), 0);
	assert_int_equal(cap.n, 0);
	assert_int_equal(cfg.nentries, 3);
	const struct cfg_entry *e = &cfg.entries[0];
	assert_int_equal(e->pinned, 1u | 4u);    /* the kernel and the second initrd */
	assert_true(pin_has(e, PIN_KERNEL));
	assert_false(pin_has(e, PIN_INITRD));
	assert_true(pin_has(e, PIN_INITRD + 1));
	assert_memory_equal(e->pin[PIN_KERNEL], abc, SHA256_BYTES);
	assert_memory_equal(e->pin[PIN_INITRD + 1], empty, SHA256_BYTES);
	assert_string_equal(pin_path(e, PIN_INITRD + 1), "/deb/two.img");
	assert_string_equal(e->cmdline, "quiet");
	assert_int_equal(cfg.entries[1].kind, CFG_KIND_EFI);
	assert_int_equal(cfg.entries[1].pinned, 1u);
	assert_memory_equal(cfg.entries[1].pin[PIN_KERNEL], empty, SHA256_BYTES);
	assert_int_equal(cfg.entries[2].pinned, 0);
	assert_true(cfg_is_entry_key("sha256", 6));
}

static void test_pin_errors(void **state)
{
	(void)state;
	cfg_rejected("entry a\n  title A\n  sha256 " H_ABC "\n  kernel /k\n", "cfg.not_here",
		     "line 3: sha256 must follow the kernel, efi, uki or initrd line");
	cfg_rejected("entry a\n  kernel /k\n  cmdline x\n  sha256 " H_ABC "\n", "cfg.not_here",
		     "line 4: sha256 must follow");
	cfg_rejected("entry a\n  kernel /k\n  sha256 " H_ABC "\n  sha256 " H_ABC "\n",
		     "cfg.not_here", "line 4: sha256 must follow");
	cfg_rejected("entry a\n  chainload 2\n  sha256 " H_ABC "\n", "cfg.not_here",
		     "line 3: sha256 must follow");
	cfg_rejected("entry a\n  kernel /k\n  sha256 ba7816bf\n", "cfg.bad_value",
		     "line 3: sha256 'ba7816bf' is not 64 hexadecimal digits");
	cfg_rejected("entry a\n  kernel /k\n  sha256 " H_ABC "0\n", "cfg.bad_value",
		     "is not 64 hexadecimal digits");
	cfg_rejected("entry a\n  kernel /k\n  sha256 zz7816bf8f01cfea414140de5dae2223b00361a396177a"
		     "9cb410ff61f20015ad\n", "cfg.bad_value", "is not 64 hexadecimal digits");
	cfg_rejected("sha256 " H_ABC "\nentry a\n  kernel /k\n", "cfg.outside_entry",
		     "line 1: sha256 outside an entry");
	/* a new entry ends what the previous one's last file line offered */
	cfg_rejected("entry a\n  kernel /k\nentry b\n  sha256 " H_ABC "\n  kernel /k\n",
		     "cfg.not_here", "line 4: sha256 must follow");
	cfg_rejected("entry a\n  kernel /k\n  sha256\n", "cfg.missing_value", "sha256 needs a value");
}

static void test_compare(void **state)
{
	(void)state;
	static const char text[] = "entry deb\n  kernel /deb/vmlinuz\n  sha256 " H_ABC "\n"
				   "  initrd /deb/initrd.img\n";
	struct capture cap;
	assert_int_equal(parse(text, &cap), 0);
	const struct cfg_entry *e = &cfg.entries[0];

	capture_init(&cap);
	assert_int_equal(pin_check(e, PIN_KERNEL, "abc", 3, NULL, 0, &cap.diag), 0);
	/* one file in two pieces (stage2's kernel) */
	assert_int_equal(pin_check(e, PIN_KERNEL, "a", 1, "bc", 2, &cap.diag), 0);
	assert_int_equal(cap.n, 0);
	/* an unpinned file passes whatever it holds */
	assert_int_equal(pin_check(e, PIN_INITRD, "anything", 8, NULL, 0, &cap.diag), 0);
	assert_int_equal(cap.n, 0);
	/* one byte changed */
	assert_int_equal(pin_check(e, PIN_KERNEL, "ab", 2, "d", 1, &cap.diag), AS_EDENIED);
	uint8_t d[SHA256_BYTES];
	char hex[SHA256_HEX_LEN + 1], want[DIAG_MSG_MAX];
	sha256("abd", 3, d);
	sha256_hex(d, hex);
	snprintf(want, sizeof want, "entry 'deb': the SHA-256 of /deb/vmlinuz (%.8s...) differs "
		 "from the pinned one (ba7816bf...), so it is not booted", hex);
	if (cap.diag.errors != 1 || !capture_has(&cap, "pin.mismatch", want)) {
		capture_dump(&cap);
		fail_msg("wanted \"%s\"", want);
	}
	capture_init(&cap);
	assert_int_equal(pin_compare(e, PIN_KERNEL, d, &cap.diag), AS_EDENIED);
	assert_true(capture_has(&cap, "pin.mismatch", want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pins_parse),
		cmocka_unit_test(test_pin_errors),
		cmocka_unit_test(test_compare),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
