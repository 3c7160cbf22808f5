/* SPDX-License-Identifier: BSD-2-Clause */
/* common/pe.c: the PE headers, sections, certificate table and SBAT records the installer's
 * Secure Boot report reads, on a minimal PE32+ image built here and on every damage to it. */
#include "tests/unit/helpers.h"

#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/pe.h"

#define LFANEW 0x40
#define OPT (LFANEW + 24)
#define OPT_SIZE 240                   /* PE32+: 112 bytes + 16 data directories */
#define SECTIONS (OPT + OPT_SIZE)
#define SBAT_OFF 0x200
#define CERT_OFF 0x400
#define IMAGE_LEN (CERT_OFF + 8 + 13 + 3 + 8 + 4)

static const char sbat_text[] = "sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"
				"anysector,1,anysector,anysector,0.1,man:anysector(8)\n";

static void section(uint8_t *img, unsigned i, const char *name, uint32_t vsize, uint32_t raw,
		    uint32_t ptr)
{
	uint8_t *s = img + SECTIONS + 40 * i;
	memcpy(s, name, strlen(name));
	le32_store(s + 8, vsize);
	le32_store(s + 16, raw);
	le32_store(s + 20, ptr);
}

/* MZ, PE32+ headers, .text and .sbat, and a certificate table of two entries (a PKCS#7 one of
 * 13 bytes padded to 8, then a 4-byte one of another type). */
static void build(uint8_t *img)
{
	memset(img, 0, IMAGE_LEN);
	img[0] = 'M';
	img[1] = 'Z';
	le32_store(img + PE_DOS_LFANEW_OFF, LFANEW);
	memcpy(img + LFANEW, "PE\0\0", 4);
	le16_store(img + LFANEW + 4, 0x8664);
	le16_store(img + LFANEW + 6, 2);
	le16_store(img + LFANEW + 20, OPT_SIZE);
	le16_store(img + OPT, 0x20B);
	le32_store(img + OPT + 108, 16);
	le32_store(img + OPT + 112 + 4 * 8, CERT_OFF);
	le32_store(img + OPT + 112 + 4 * 8 + 4, IMAGE_LEN - CERT_OFF);
	section(img, 0, ".text", 0x10, 0x20, 0x100);
	section(img, 1, ".sbat", sizeof sbat_text - 1, 0x200, SBAT_OFF);
	memcpy(img + SBAT_OFF, sbat_text, sizeof sbat_text - 1);
	uint8_t *c = img + CERT_OFF;
	le32_store(c, 8 + 13);
	le16_store(c + 4, PE_CERT_REVISION_2);
	le16_store(c + 6, PE_CERT_TYPE_PKCS7);
	memcpy(c + 8, "pkcs7-bytes!!", 13);
	c += 8 + 13 + 3;
	le32_store(c, 8 + 4);
	le16_store(c + 4, PE_CERT_REVISION_2);
	le16_store(c + 6, 1);
}

static uint8_t img[IMAGE_LEN];

static void test_valid(void **state)
{
	(void)state;
	struct pe_image pe;
	const uint8_t *d;
	size_t n;
	build(img);
	assert_int_equal(pe_parse(img, sizeof img, &pe), 0);
	assert_int_equal(pe.machine, 0x8664);
	assert_true(pe.pe32plus);
	assert_int_equal(pe.nsections, 2);
	assert_int_equal(pe.cert_off, CERT_OFF);
	assert_int_equal(pe_section(&pe, ".sbat", &d, &n), 0);
	assert_int_equal(n, sizeof sbat_text - 1);   /* cut to the virtual size */
	assert_memory_equal(d, sbat_text, n);
	assert_int_equal(pe_section(&pe, ".text", &d, &n), 0);
	assert_int_equal(n, 0x10);
	assert_int_equal(pe_section(&pe, ".tex", &d, &n), AS_ENOENT);
	assert_int_equal(pe_section(&pe, ".data", &d, &n), AS_ENOENT);
	assert_int_equal(pe_section(&pe, ".sbatlong", &d, &n), AS_ENOENT);

	uint32_t pos = 0;
	uint16_t rev, type;
	assert_int_equal(pe_cert_next(&pe, &pos, &rev, &type, &d, &n), 0);
	assert_int_equal(rev, PE_CERT_REVISION_2);
	assert_int_equal(type, PE_CERT_TYPE_PKCS7);
	assert_int_equal(n, 13);
	assert_memory_equal(d, "pkcs7-bytes!!", 13);
	assert_int_equal(pe_cert_next(&pe, &pos, &rev, &type, &d, &n), 0);
	assert_int_equal(type, 1);
	assert_int_equal(n, 4);
	assert_int_equal(pe_cert_next(&pe, &pos, &rev, &type, &d, &n), AS_ENOENT);

	/* unsigned: an empty security directory */
	le32_store(img + OPT + 112 + 4 * 8 + 4, 0);
	assert_int_equal(pe_parse(img, sizeof img, &pe), 0);
	assert_int_equal(pe.cert_off, 0);
	pos = 0;
	assert_int_equal(pe_cert_next(&pe, &pos, &rev, &type, &d, &n), AS_ENOENT);
}

/* The certificate table ends the image: every cut loses part of it (or of the headers before
 * it) and is refused; without that table, a cut through .sbat refuses that section only. */
static void test_truncated(void **state)
{
	(void)state;
	struct pe_image pe;
	const uint8_t *d;
	size_t n;
	build(img);
	for (size_t len = 0; len < sizeof img; len++)
		assert_int_equal(pe_parse(img, len, &pe), AS_ECORRUPT);
	assert_int_equal(pe_parse(img, sizeof img, &pe), 0);
	le32_store(img + OPT + 112 + 4 * 8, 0);
	le32_store(img + OPT + 112 + 4 * 8 + 4, 0);
	assert_int_equal(pe_parse(img, SBAT_OFF + 10, &pe), 0);
	assert_int_equal(pe_section(&pe, ".sbat", &d, &n), AS_ECORRUPT);
	assert_int_equal(pe_section(&pe, ".text", &d, &n), 0);
}

static void expect_corrupt(void)
{
	struct pe_image pe;
	assert_int_equal(pe_parse(img, sizeof img, &pe), AS_ECORRUPT);
	build(img);
}

static void test_damaged(void **state)
{
	(void)state;
	struct pe_image pe;
	build(img);
	img[1] = 'X';
	expect_corrupt();
	le32_store(img + PE_DOS_LFANEW_OFF, IMAGE_LEN - 10);
	expect_corrupt();
	le32_store(img + PE_DOS_LFANEW_OFF, 0xFFFFFFF0u);
	expect_corrupt();
	img[LFANEW + 2] = 'X';
	expect_corrupt();
	le16_store(img + OPT, 0x107);                       /* ROM image */
	expect_corrupt();
	le16_store(img + LFANEW + 20, 100);                 /* optional header too short */
	expect_corrupt();
	le16_store(img + LFANEW + 20, 0xFFFF);              /* and past the file */
	expect_corrupt();
	le32_store(img + OPT + 108, 17);                    /* more directories than it holds */
	expect_corrupt();
	le16_store(img + LFANEW + 6, 200);                  /* section table past the file */
	expect_corrupt();
	le32_store(img + OPT + 112 + 4 * 8, IMAGE_LEN);     /* certificates past the end */
	expect_corrupt();
	le32_store(img + OPT + 112 + 4 * 8 + 4, 0xFFFFFFF8u);
	expect_corrupt();
	le32_store(img + OPT + 112 + 4 * 8, 0);             /* a size without an offset */
	expect_corrupt();

	/* a PE32 (not PE32+) image finds its directories at the PE32 offsets */
	le16_store(img + OPT, 0x10B);
	le32_store(img + OPT + 92, 0);
	assert_int_equal(pe_parse(img, sizeof img, &pe), 0);
	assert_false(pe.pe32plus);
	build(img);

	/* certificate entries: shorter than the header, or running past the table */
	const uint8_t *d;
	size_t n;
	uint32_t pos = 0;
	uint16_t rev, type;
	le32_store(img + CERT_OFF, 7);
	assert_int_equal(pe_parse(img, sizeof img, &pe), 0);
	assert_int_equal(pe_cert_next(&pe, &pos, &rev, &type, &d, &n), AS_ECORRUPT);
	le32_store(img + CERT_OFF, IMAGE_LEN - CERT_OFF + 1);
	pos = 0;
	assert_int_equal(pe_cert_next(&pe, &pos, &rev, &type, &d, &n), AS_ECORRUPT);
	/* a section whose raw data lies past the file */
	build(img);
	le32_store(img + SECTIONS + 40 + 20, IMAGE_LEN - 4);
	assert_int_equal(pe_parse(img, sizeof img, &pe), 0);
	assert_int_equal(pe_section(&pe, ".sbat", &d, &n), AS_ECORRUPT);
}

/* The headers read from the file's first bytes: they and the section table must lie there; the
 * certificate table and each section are judged against the whole file, so a section past the
 * bytes read is found (pe_section_span) but not handed out as bytes (pe_section). */
static void test_head(void **state)
{
	(void)state;
	struct pe_image pe;
	struct pe_span sp;
	const uint8_t *d, *name;
	size_t n;
	build(img);
	assert_int_equal(pe_parse_head(img, SECTIONS + 80, IMAGE_LEN, &pe), 0);
	assert_int_equal(pe.file_len, IMAGE_LEN);
	assert_int_equal(pe_section_span(&pe, ".sbat", &sp), 0);
	assert_int_equal(sp.off, SBAT_OFF);
	assert_int_equal(sp.len, sizeof sbat_text - 1);
	assert_int_equal(pe_section(&pe, ".sbat", &d, &n), AS_ECORRUPT);
	assert_int_equal(pe_section_at(&pe, 1, &name, &sp), 0);
	assert_memory_equal(name, ".sbat\0\0\0", 8);
	/* one byte of the section table missing */
	assert_int_equal(pe_parse_head(img, SECTIONS + 79, IMAGE_LEN, &pe), AS_ECORRUPT);
	assert_int_equal(pe.fault, PE_FAULT_TABLE);
	assert_int_equal(pe.fault_at, SECTIONS);
	assert_int_equal(pe.fault_end, SECTIONS + 80);
	/* more bytes given than the file has */
	assert_int_equal(pe_parse_head(img, IMAGE_LEN, IMAGE_LEN - 1, &pe), AS_ECORRUPT);
	assert_int_equal(pe.fault, PE_FAULT_NO_MZ);
	/* the certificate table is judged against the file, not the bytes read */
	assert_int_equal(pe_parse_head(img, SECTIONS + 80, CERT_OFF + 8, &pe), AS_ECORRUPT);
	assert_int_equal(pe.fault, PE_FAULT_CERT);
	assert_int_equal(pe.fault_at, CERT_OFF);
	/* a section past the file's end: span filled, AS_ECORRUPT */
	le32_store(img + OPT + 112 + 4 * 8 + 4, 0);
	assert_int_equal(pe_parse_head(img, SECTIONS + 80, SBAT_OFF + 4, &pe), 0);
	assert_int_equal(pe_section_span(&pe, ".sbat", &sp), AS_ECORRUPT);
	assert_int_equal(sp.off, SBAT_OFF);
	assert_int_equal(pe_section_span(&pe, ".text", &sp), 0);
	/* faults that name their place */
	build(img);
	le32_store(img + PE_DOS_LFANEW_OFF, IMAGE_LEN);
	assert_int_equal(pe_parse(img, sizeof img, &pe), AS_ECORRUPT);
	assert_int_equal(pe.fault, PE_FAULT_NO_PE);
	build(img);
	le16_store(img + OPT, 0x107);
	assert_int_equal(pe_parse(img, sizeof img, &pe), AS_ECORRUPT);
	assert_int_equal(pe.fault, PE_FAULT_HEADER);
	build(img);
	le16_store(img + LFANEW + 6, 200);
	assert_int_equal(pe_parse(img, sizeof img, &pe), AS_ECORRUPT);
	assert_int_equal(pe.fault, PE_FAULT_TABLE);
	assert_int_equal(pe.fault_end, SECTIONS + 200 * 40);
	/* a name of all 8 characters matches only those 8 */
	build(img);
	memcpy(img + SECTIONS, ".textabc", 8);
	assert_int_equal(pe_parse(img, sizeof img, &pe), 0);
	assert_int_equal(pe_section_span(&pe, ".textabc", &sp), 0);
	assert_int_equal(pe_section_span(&pe, ".textab", &sp), AS_ENOENT);
	assert_int_equal(pe_section_span(&pe, ".text", &sp), AS_ENOENT);
}

static void test_sbat(void **state)
{
	(void)state;
	struct sbat_record r;
	size_t pos = 0;
	const char text[] = "\r\nsbat,1,SBAT Version,sbat,1,url\r\n\r\nshim,4,UEFI shim,shim,1,u\n"
			    "shim.debian,1,Debian,shim,16.1,https://x\nshort,2\0after,9,,,,\n";
	const uint8_t *t = (const uint8_t *)text;
	assert_int_equal(sbat_next(t, sizeof text - 1, &pos, &r), 0);
	assert_int_equal(r.field_len[0], 4);
	assert_memory_equal(r.field[0], "sbat", 4);
	assert_int_equal(sbat_next(t, sizeof text - 1, &pos, &r), 0);
	assert_memory_equal(r.field[0], "shim", r.field_len[0]);
	assert_int_equal(r.generation, 4);
	assert_int_equal(r.field_len[4], 1);
	assert_int_equal(sbat_next(t, sizeof text - 1, &pos, &r), 0);
	assert_int_equal(r.field_len[4], 4);
	assert_memory_equal(r.field[4], "16.1", 4);
	assert_int_equal(sbat_next(t, sizeof text - 1, &pos, &r), 0);
	assert_int_equal(r.generation, 2);
	assert_int_equal(r.field_len[2], 0);            /* absent fields are empty */
	assert_non_null(r.field[4]);
	/* the NUL ends the text: "after" is never seen */
	assert_int_equal(sbat_next(t, sizeof text - 1, &pos, &r), AS_ENOENT);
	assert_int_equal(sbat_find(t, sizeof text - 1, "after", &r), AS_ENOENT);
	assert_int_equal(sbat_find(t, sizeof text - 1, "shim.debian", &r), 0);
	assert_int_equal(r.generation, 1);
	assert_int_equal(sbat_find(t, sizeof text - 1, "shi", &r), AS_ENOENT);

	static const char *const bad[] = { "sbat\n", "x,\n", "x,1a,b\n", "x,-1\n", "x,1234567890\n" };
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		pos = 0;
		assert_int_equal(sbat_next((const uint8_t *)bad[i], strlen(bad[i]), &pos, &r),
				 AS_ECORRUPT);
	}
	pos = 0;
	assert_int_equal(sbat_next((const uint8_t *)"x,123456789", 11, &pos, &r), 0);
	assert_int_equal(r.generation, 123456789);
	pos = 0;
	assert_int_equal(sbat_next((const uint8_t *)"\n\n", 2, &pos, &r), AS_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),   cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_damaged), cmocka_unit_test(test_head),
		cmocka_unit_test(test_sbat),
	};
	return cmocka_run_group_tests_name("pe", tests, NULL, NULL);
}
