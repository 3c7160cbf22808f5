/* SPDX-License-Identifier: BSD-2-Clause */
/* The Linux/x86 setup header parser against headers synthesized field by field from
 * Documentation/arch/x86/boot.rst: a modern bzImage, older protocols with their defaults, and
 * each refusal. */
#include "tests/unit/helpers.h"

#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/linux.h"

#define KERNEL_BYTES 100000u

struct image {
	uint8_t *buf;
	size_t size;
};

/* A bzImage of protocol `version` with setup_sects 4 and KERNEL_BYTES of kernel. */
static struct image make(uint16_t version)
{
	struct image im;
	im.size = 5 * 512 + KERNEL_BYTES;
	im.buf = calloc(1, im.size);
	assert_non_null(im.buf);
	uint8_t *b = im.buf;
	b[0x1F1] = 4;
	le32_store(b + 0x1F4, KERNEL_BYTES / 16);
	le16_store(b + 0x1FE, 0xAA55);
	b[0x200] = 0xEB;
	memcpy(b + 0x202, "HdrS", 4);
	le16_store(b + 0x206, version);
	b[0x211] = LINUX_LOADED_HIGH;
	le32_store(b + 0x22C, 0x7FFFFFFF);
	le32_store(b + 0x230, 0x200000);
	b[0x234] = 1;
	le16_store(b + 0x236, LINUX_XLF_KERNEL_64 | 0x02);
	le32_store(b + 0x238, 2047);
	le64_store(b + 0x258, 0x1000000);
	le32_store(b + 0x260, 0x2345000);
	return im;
}

static int parse(struct image *im, struct linux_header *h, struct capture *cap)
{
	capture_init(cap);
	return linux_header_parse(im->buf, im->size < LINUX_HEADER_BYTES ? im->size : LINUX_HEADER_BYTES,
				  im->size, h, &cap->diag);
}

static void test_modern_bzimage(void **state)
{
	(void)state;
	struct image im = make(0x020F);
	struct linux_header h;
	struct capture cap;
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(cap.n, 0);
	assert_int_equal(h.version, 0x020F);
	assert_int_equal(h.setup_sects, 4);
	assert_int_equal(h.setup_bytes, 2560);
	assert_int_equal(h.kernel_bytes, KERNEL_BYTES);
	assert_int_equal(h.loadflags, LINUX_LOADED_HIGH);
	assert_int_equal(h.syssize, KERNEL_BYTES / 16);
	assert_int_equal(h.initrd_addr_max, 0x7FFFFFFF);
	assert_int_equal(h.kernel_alignment, 0x200000);
	assert_int_equal(h.relocatable, 1);
	assert_int_equal(h.cmdline_size, 2047);
	assert_int_equal(h.pref_address, 0x1000000);
	assert_int_equal(h.init_size, 0x2345000);
	assert_int_equal(h.xloadflags, LINUX_XLF_KERNEL_64 | 0x02);
	assert_false(h.has_pe_header);

	/* an EFI stub: "MZ" and a PE signature where 0x3C points */
	im.buf[0] = 'M';
	im.buf[1] = 'Z';
	le32_store(im.buf + 0x3C, 0x40);
	memcpy(im.buf + 0x40, "PE\0\0", 4);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_true(h.has_pe_header);
	/* a PE offset outside what was given is not trusted */
	le32_store(im.buf + 0x3C, LINUX_HEADER_BYTES - 2);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_false(h.has_pe_header);
	le32_store(im.buf + 0x3C, 0xFFFFFFFF);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_false(h.has_pe_header);
	le32_store(im.buf + 0x3C, 0x40);
	im.buf[0x42] = 'X';
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_false(h.has_pe_header);
	free(im.buf);
}

static void test_setup_sects_zero_means_four(void **state)
{
	(void)state;
	struct image im = make(0x020F);
	struct linux_header h;
	struct capture cap;
	im.buf[0x1F1] = 0;
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.setup_sects, 0);
	assert_int_equal(h.setup_bytes, 5 * LINUX_SETUP_SECTOR);
	/* a larger setup leaves less kernel */
	im.buf[0x1F1] = 1;
	le32_store(im.buf + 0x1F4, (KERNEL_BYTES + 3 * 512) / 16);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.setup_bytes, 1024);
	assert_int_equal(h.kernel_bytes, KERNEL_BYTES + 3 * 512);
	free(im.buf);
}

/* Fields a protocol does not have take boot.rst's defaults, whatever bytes are there. */
static void test_old_protocol_defaults(void **state)
{
	(void)state;
	struct linux_header h;
	struct capture cap;

	struct image im = make(0x0202);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.initrd_addr_max, 0x37FFFFFF);
	assert_int_equal(h.cmdline_size, 255);
	assert_int_equal(h.kernel_alignment, 0);
	assert_int_equal(h.relocatable, 0);
	assert_int_equal(h.pref_address, 0x100000);
	assert_int_equal(h.init_size, 0);
	assert_int_equal(h.xloadflags, 0);
	/* before 2.04 syssize is 16 bits and unchecked */
	le32_store(im.buf + 0x1F4, 0xFFFF0010);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.syssize, 0x10);
	free(im.buf);

	im = make(0x0203);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.initrd_addr_max, 0x7FFFFFFF);
	assert_int_equal(h.cmdline_size, 255);
	free(im.buf);

	im = make(0x0205);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.kernel_alignment, 0x200000);
	assert_int_equal(h.relocatable, 1);
	assert_int_equal(h.cmdline_size, 255);
	free(im.buf);

	im = make(0x0206);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.cmdline_size, 2047);
	assert_int_equal(h.pref_address, 0x100000);
	free(im.buf);

	im = make(0x020A);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.pref_address, 0x1000000);
	assert_int_equal(h.init_size, 0x2345000);
	assert_int_equal(h.xloadflags, 0);
	free(im.buf);

	im = make(0x020C);
	assert_int_equal(parse(&im, &h, &cap), 0);
	assert_int_equal(h.xloadflags, LINUX_XLF_KERNEL_64 | 0x02);
	free(im.buf);
}

static void expect_refusal(struct image *im, int rc_want, const char *code, const char *want)
{
	struct linux_header h;
	struct capture cap;
	int rc = parse(im, &h, &cap);
	if (rc != rc_want) {
		capture_dump(&cap);
		fail_msg("rc %d, wanted %d", rc, rc_want);
	}
	assert_reported(&cap, code, want);
	assert_int_equal(cap.diag.errors, 1);
}

static void test_refusals(void **state)
{
	(void)state;
	struct image im = make(0x020F);
	struct linux_header h;
	struct capture cap;

	le16_store(im.buf + 0x1FE, 0x1234);
	expect_refusal(&im, AS_ECORRUPT, "linux.boot_flag", "boot flag at 0x1FE is 0x1234");
	le16_store(im.buf + 0x1FE, 0xAA55);

	memcpy(im.buf + 0x202, "HdrX", 4);
	expect_refusal(&im, AS_ECORRUPT, "linux.magic", "no \"HdrS\"");
	memcpy(im.buf + 0x202, "HdrS", 4);

	le16_store(im.buf + 0x206, 0x0201);
	expect_refusal(&im, AS_EUNSUPP, "linux.old_protocol", "boot protocol 2.01 is older than the 2.02");
	le16_store(im.buf + 0x206, 0x020F);

	im.buf[0x211] = LINUX_CAN_USE_HEAP;
	expect_refusal(&im, AS_EUNSUPP, "linux.zimage", "zImage");
	im.buf[0x211] = LINUX_LOADED_HIGH;

	/* syssize: one paragraph of rounding is allowed, a whole paragraph more is not */
	le32_store(im.buf + 0x1F4, DIV_ROUND_UP(KERNEL_BYTES, 16));
	assert_int_equal(parse(&im, &h, &cap), 0);
	le32_store(im.buf + 0x1F4, KERNEL_BYTES / 16 + 1);
	expect_refusal(&im, AS_ECORRUPT, "linux.syssize", "syssize says 100016 bytes");
	le32_store(im.buf + 0x1F4, 0xFFFFFFFF);
	expect_refusal(&im, AS_ECORRUPT, "linux.syssize", "only 100000 after the setup");
	le32_store(im.buf + 0x1F4, KERNEL_BYTES / 16);

	/* setup as large as the whole file */
	im.buf[0x1F1] = 255;
	expect_refusal(&im, AS_ECORRUPT, "linux.setup_size", "setup of 131072 bytes (255 sectors)");
	im.buf[0x1F1] = 4;

	/* a file too small to hold the header at all */
	capture_init(&cap);
	assert_int_equal(linux_header_parse(im.buf, 0x200, 0x200, &h, &cap.diag), AS_ECORRUPT);
	assert_reported(&cap, "linux.too_small", "512 bytes, too small");
	/* the caller gave less than the header */
	capture_init(&cap);
	assert_int_equal(linux_header_parse(im.buf, 0x200, im.size, &h, &cap.diag), AS_EINVAL);
	assert_reported(&cap, "linux.buffer", "needs the first 640");

	assert_int_equal(parse(&im, &h, &cap), 0);
	free(im.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modern_bzimage),
		cmocka_unit_test(test_setup_sects_zero_means_four),
		cmocka_unit_test(test_old_protocol_defaults),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
