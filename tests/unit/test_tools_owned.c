/* SPDX-License-Identifier: BSD-2-Clause */
/* The list of files anysector owns on the ESP (tools/ops/owned.c): its text read and written
 * back, every malformed line refused with its number; and UEFI boot entries
 * (tools/boot/loadopt.c): the bytes of an EFI_LOAD_OPTION as efibootmgr lays it out, read back,
 * and load options that run past their data refused. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/boot/loadopt.h"
#include "tools/ops/owned.h"

#define H1 "ebb46eeddbc408b8bafbc0af509c2643de12be574f441d4e936c710b1fc7aec4"
#define H2 "F052D761315A9CFC16E31B897FDF78F8FC1644E869DB27799310302801369D79"

static void test_owned_round_trip(void **state)
{
	(void)state;
	struct owned o;
	char why[200];
	const char *text = "# comment\r\n\n" H1 "  /lin/vmlinuz\r\n" H2 "\t/EFI/BOOT/BOOTX64.EFI  \n";

	memset(&o, 0, sizeof o);
	assert_true(owned_parse(text, strlen(text), &o, why, sizeof why));
	assert_int_equal(o.n, 2);
	assert_non_null(owned_find(&o, "/efi/boot/bootx64.efi"));
	assert_null(owned_find(&o, "/lin"));
	assert_int_equal(owned_find(&o, "/LIN/VMLINUZ")->sha[0], 0xeb);
	char *out = owned_text(&o);
	/* sorted by path, lower-case hash, two spaces */
	assert_non_null(strstr(out, "f052d761315a9cfc16e31b897fdf78f8fc1644e869db27799310302801369d79"
				    "  /EFI/BOOT/BOOTX64.EFI\n" H1 "  /lin/vmlinuz\n"));
	struct owned back;
	memset(&back, 0, sizeof back);
	assert_true(owned_parse(out, strlen(out), &back, why, sizeof why));
	assert_int_equal(back.n, 2);
	assert_memory_equal(back.f[0].sha, owned_find(&o, back.f[0].path)->sha, 32);
	owned_forget(&back, "/Lin/Vmlinuz");
	assert_int_equal(back.n, 1);
	assert_true(back.changed);
	free(out);
	owned_free(&o);
	owned_free(&back);
	assert_true(owned_by_name("/ANYSECTOR.CFG"));
	assert_true(owned_by_name("\\anysector.own"));
	assert_false(owned_by_name("/x/anysector.cfg"));
}

static void test_owned_refusals(void **state)
{
	(void)state;
	static const char *const bad[] = {
		H1 "/no/space",                       /* no white space after the hash */
		H1 "  relative/path",                 /* not absolute */
		H1,                                   /* no path */
		"0" H1 "  /one/digit/too/many",
		"zz" H1 "  /x",                       /* not hex */
		H1 "  /ctl\x01char",
	};
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		char text[300], why[200];
		struct owned o;
		memset(&o, 0, sizeof o);
		snprintf(text, sizeof text, "# head\n" H1 "  /ok\n%s\n", bad[i]);
		assert_false(owned_parse(text, strlen(text), &o, why, sizeof why));
		assert_non_null(strstr(why, "line 3 is not"));
		owned_free(&o);
	}
	/* more files than OWNED_MAX_FILES */
	size_t cap = (OWNED_MAX_FILES + 2) * 100;
	char *text = malloc(cap), why[200];
	size_t at = 0;
	for (unsigned i = 0; i <= OWNED_MAX_FILES; i++)
		at += (size_t)snprintf(text + at, cap - at, H1 "  /f/%u\n", i);
	struct owned o;
	memset(&o, 0, sizeof o);
	assert_false(owned_parse(text, at, &o, why, sizeof why));
	assert_non_null(strstr(why, "one file too many"));
	owned_free(&o);
	free(text);
}

/* efibootmgr -c -d DISK -p 2 -l '\EFI\anysector\anysectorx64.efi' -L anysector lays this out. */
static void test_loadopt_build(void **state)
{
	(void)state;
	struct loadopt_hd hd = { .number = 2, .start = 4096, .size = 126976, .gpt = true };
	for (unsigned i = 0; i < 16; i++)
		hd.signature[i] = (uint8_t)(0xA0 + i);
	uint8_t buf[512];
	size_t n = loadopt_build(buf, sizeof buf, "anysector", &hd, "/EFI/anysector/anysectorx64.efi");
	size_t path_bytes = 2 * (31 + 1), dp = 42 + 4 + path_bytes + 4;
	assert_int_equal(n, 6 + 2 * 10 + dp);
	assert_int_equal(le32_load(buf), LOAD_OPTION_ACTIVE);
	assert_int_equal(le16_load(buf + 4), dp);
	assert_int_equal(le16_load(buf + 6), 'a');
	assert_int_equal(le16_load(buf + 6 + 18), 0);
	const uint8_t *p = buf + 26;
	assert_int_equal(p[0], 4);
	assert_int_equal(p[1], 1);
	assert_int_equal(le16_load(p + 2), 42);
	assert_int_equal(le32_load(p + 4), 2);
	assert_int_equal(le64_load(p + 8), 4096);
	assert_int_equal(le64_load(p + 16), 126976);
	assert_int_equal(p[24], 0xA0);
	assert_int_equal(p[40], 2);
	assert_int_equal(p[41], 2);
	p += 42;
	assert_int_equal(p[0], 4);
	assert_int_equal(p[1], 4);
	assert_int_equal(le16_load(p + 2), 4 + path_bytes);
	assert_int_equal(le16_load(p + 4), '\\');
	assert_int_equal(le16_load(p + 4 + 8), '\\');  /* "\EFI\" */
	p += 4 + path_bytes;
	assert_int_equal(le32_load(p), 0x0004FF7Fu);

	struct loadopt_info li;
	assert_int_equal(loadopt_parse(buf, n, &li), 0);
	assert_string_equal(li.desc, "anysector");
	assert_true(li.has_hd && li.has_file && li.hd.gpt);
	assert_int_equal(li.hd.number, 2);
	assert_int_equal(li.hd.start, 4096);
	assert_memory_equal(li.hd.signature, hd.signature, 16);
	assert_string_equal(li.path, "\\EFI\\anysector\\anysectorx64.efi");
	assert_true(loadopt_path_eq(li.path, "/efi/ANYSECTOR/anysectorx64.EFI"));
	assert_false(loadopt_path_eq(li.path, "/efi/anysector/x.efi"));
	/* an MBR disk: the 32-bit signature, types 1 */
	hd.gpt = false;
	n = loadopt_build(buf, sizeof buf, "x", &hd, "EFI\\x.efi");
	assert_int_equal(buf[6 + 4 + 40], 1);
	assert_int_equal(buf[6 + 4 + 41], 1);
	assert_int_equal(loadopt_parse(buf, n, &li), 0);
	assert_false(li.hd.gpt);
	assert_string_equal(li.path, "\\EFI\\x.efi");
	/* too small a buffer, non-ASCII text */
	assert_int_equal(loadopt_build(buf, 40, "anysector", &hd, "/x"), 0);
	assert_int_equal(loadopt_build(buf, sizeof buf, "caf\xc3\xa9", &hd, "/x"), 0);
}

static void test_loadopt_parse_bounds(void **state)
{
	(void)state;
	struct loadopt_hd hd = { .number = 1, .start = 2048, .size = 2048, .gpt = true };
	uint8_t buf[512];
	struct loadopt_info li;
	size_t n = loadopt_build(buf, sizeof buf, "w", &hd, "/a.efi");

	/* every truncation is refused or reads only what is there */
	for (size_t k = 0; k < n; k++)
		assert_int_equal(loadopt_parse(buf, k, &li), AS_ECORRUPT);
	/* a node length of 0 or past the list */
	uint8_t bad[512];
	memcpy(bad, buf, n);
	le16_store(bad + 6 + 4 + 2, 0);
	assert_int_equal(loadopt_parse(bad, n, &li), AS_ECORRUPT);
	memcpy(bad, buf, n);
	le16_store(bad + 6 + 4 + 2, 500);
	assert_int_equal(loadopt_parse(bad, n, &li), AS_ECORRUPT);
	/* a firmware's entry: PciRoot-like nodes first, then HD and File */
	uint8_t fw[600];
	memcpy(fw, buf, 10);
	size_t dpl = le16_load(buf + 4) + 12;
	le16_store(fw + 4, (uint16_t)dpl);
	fw[10] = 2;   /* ACPI */
	fw[11] = 1;
	le16_store(fw + 12, 12);
	memset(fw + 14, 0, 8);
	memcpy(fw + 22, buf + 10, n - 10);
	assert_int_equal(loadopt_parse(fw, n + 12, &li), 0);
	assert_true(li.has_hd && li.has_file);
	assert_string_equal(li.path, "\\a.efi");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owned_round_trip),
		cmocka_unit_test(test_owned_refusals),
		cmocka_unit_test(test_loadopt_build),
		cmocka_unit_test(test_loadopt_parse_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
