/* SPDX-License-Identifier: BSD-2-Clause */
/* CRC32, GUIDs, little-endian helpers, the formatter, strings and the stage2 header. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <string.h>

#include "common/bootinfo.h"
#include "common/crc32.h"
#include "common/fmt.h"
#include "common/guid.h"
#include "common/le.h"
#include "common/str.h"

static void test_crc32_vectors(void **state)
{
	(void)state;
	assert_int_equal(crc32("123456789", 9), 0xCBF43926u);
	assert_int_equal(crc32("", 0), 0);
	assert_int_equal(crc32("a", 1), 0xE8B7BE43u);
	/* piecewise equals whole */
	uint32_t c = crc32_update(0, "1234", 4);
	assert_int_equal(crc32_update(c, "56789", 5), 0xCBF43926u);
	uint8_t zeros[32] = { 0 };
	assert_int_equal(crc32(zeros, 32), 0x190A55ADu);
}

static void test_guid_roundtrip(void **state)
{
	(void)state;
	struct guid g;
	char s[GUID_STR_LEN + 1];
	static const uint8_t esp[16] = { 0x28, 0x73, 0x2A, 0xC1, 0x1F, 0xF8, 0xD2, 0x11,
					 0xBA, 0x4B, 0x00, 0xA0, 0xC9, 0x3E, 0xC9, 0x3B };
	assert_true(guid_parse("C12A7328-F81F-11D2-BA4B-00A0C93EC93B", &g));
	assert_memory_equal(g.b, esp, 16);
	assert_true(guid_eq(&g, &GUID_ESP));
	guid_format(&g, s);
	assert_string_equal(s, "C12A7328-F81F-11D2-BA4B-00A0C93EC93B");
	assert_true(guid_parse("{c12a7328-f81f-11d2-ba4b-00a0c93ec93b}", &g));
	assert_true(guid_eq(&g, &GUID_ESP));
	assert_true(guid_parse("21686148-6449-6E6F-744E-656564454649", &g));
	assert_memory_equal(g.b, "Hah!IdontNeedEFI", 16);
	assert_true(guid_parse("0FC63DAF-8483-4772-8E79-3D69D8477DE4", &g));
	assert_true(guid_eq(&g, &GUID_LINUX_FS));
	assert_true(guid_parse("EBD0A0A2-B9E5-4433-87C0-68B6B72699C7", &g));
	assert_true(guid_eq(&g, &GUID_MS_BASIC));
	assert_false(guid_parse("C12A7328-F81F-11D2-BA4B-00A0C93EC93", &g));
	assert_false(guid_parse("C12A7328-F81F-11D2-BA4B-00A0C93EC93BX", &g));
	assert_false(guid_parse("C12A7328_F81F-11D2-BA4B-00A0C93EC93B", &g));
	assert_false(guid_parse("G12A7328-F81F-11D2-BA4B-00A0C93EC93B", &g));
	assert_false(guid_parse("", &g));
	memset(&g, 0, sizeof g);
	assert_true(guid_is_zero(&g));
}

static void test_le_helpers(void **state)
{
	(void)state;
	uint8_t b[11] = { 0 };
	le64_store(b + 1, 0x0102030405060708ULL);
	assert_int_equal(b[1], 0x08);
	assert_int_equal(b[8], 0x01);
	assert_true(le64_load(b + 1) == 0x0102030405060708ULL);
	le32_store(b + 3, 0xDEADBEEF);
	assert_int_equal(le32_load(b + 3), 0xDEADBEEF);
	le16_store(b + 9, 0xAA55);
	assert_int_equal(b[9], 0x55);
	assert_int_equal(le16_load(b + 9), 0xAA55);
}

static void test_fmt(void **state)
{
	(void)state;
	char buf[128], ref[128];
	fmt_snprintf(buf, sizeof buf, "GPT entry %u: start LBA %llu beyond last usable %llu", 3u,
		     9000ULL, 8158ULL);
	assert_string_equal(buf, "GPT entry 3: start LBA 9000 beyond last usable 8158");
	fmt_snprintf(buf, sizeof buf, "[%5d|%-5d|%05d|%x|%08X|%s|%.3s|%c|%%|%lld]", -42, 7, 42,
		     0xbeefu, 0xCAFEu, "str", "abcdef", 'z', -9000000000LL);
	snprintf(ref, sizeof ref, "[%5d|%-5d|%05d|%x|%08X|%s|%.3s|%c|%%|%lld]", -42, 7, 42, 0xbeefu,
		 0xCAFEu, "str", "abcdef", 'z', -9000000000LL);
	assert_string_equal(buf, ref);
	fmt_snprintf(buf, sizeof buf, "%zu %lu %llx %*s|%-*s|", (size_t)123, 456UL, 0x1234567890ULL,
		     4, "ab", 3, "c");
	assert_string_equal(buf, "123 456 1234567890   ab|c  |");
	/* truncation always terminates and reports the full length */
	assert_int_equal(fmt_snprintf(buf, 5, "%s", "abcdefgh"), 8);
	assert_string_equal(buf, "abcd");
	assert_int_equal(fmt_snprintf(buf, 1, "xyz"), 3);
	assert_string_equal(buf, "");
}

static void test_str(void **state)
{
	(void)state;
	char b[8];
	unsigned long long v;
	assert_true(str_copy(b, sizeof b, "abc"));
	assert_string_equal(b, "abc");
	assert_false(str_copy(b, sizeof b, "abcdefghij"));
	assert_string_equal(b, "abcdefg");
	assert_int_equal(str_casecmp("VMLinuz", "vmlinuz"), 0);
	assert_true(str_casecmp("a", "b") < 0);
	assert_int_equal(str_ncasecmp("EFIx", "efiy", 3), 0);
	assert_true(str_to_u64("115200", 6, &v) && v == 115200);
	assert_true(str_to_u64("0x1F", 4, &v) && v == 31);
	assert_false(str_to_u64("12a", 3, &v));
	assert_false(str_to_u64("", 0, &v));
	assert_false(str_to_u64("0x", 2, &v));
	assert_false(str_to_u64("99999999999999999999", 20, &v));
	assert_true(str_to_u64("18446744073709551615", 20, &v) && v == UINT64_MAX);
}

static void test_stage2_header(void **state)
{
	(void)state;
	uint8_t img[1024];
	memset(img, 0x90, sizeof img);
	memcpy(img + STAGE2_MAGIC_OFF, STAGE2_MAGIC, 8);
	le32_store(img + STAGE2_HDR_VERSION_OFF, STAGE2_HDR_VERSION);
	le32_store(img + STAGE2_LENGTH_OFF, sizeof img);
	struct stage2_identity id = { .kind = STAGE2_KIND_GPT, .config_path = "/anysector.cfg",
				      .state_offset = 0x000FE000 };
	guid_parse("01234567-89AB-CDEF-0123-456789ABCDEF", &id.part_guid);
	stage2_identity_set(img, sizeof img, &id);
	assert_true(stage2_image_valid(img, sizeof img));
	struct stage2_identity back;
	stage2_identity_get(img, &back);
	assert_int_equal(back.kind, STAGE2_KIND_GPT);
	assert_true(guid_eq(&back.part_guid, &id.part_guid));
	assert_string_equal(back.config_path, "/anysector.cfg");
	assert_int_equal(back.state_offset, 0x000FE000);
	assert_int_equal(le32_load(img + 0x3C), 0x000FE000);
	/* one flipped byte anywhere is a torn image */
	img[700] ^= 1;
	assert_false(stage2_image_valid(img, sizeof img));
	img[700] ^= 1;
	assert_false(stage2_image_valid(img, sizeof img - 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32_vectors), cmocka_unit_test(test_guid_roundtrip),
		cmocka_unit_test(test_le_helpers),    cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_str),           cmocka_unit_test(test_stage2_header),
	};
	return cmocka_run_group_tests_name("basics", tests, NULL, NULL);
}
