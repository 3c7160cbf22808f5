/* SPDX-License-Identifier: BSD-2-Clause */
/* The root= argument of mkimage --root-dir (tools/disk/rootarg.c): which command lines already have
 * one, the PARTUUID spelling of the kernel for GPT and MBR, the Linux partition chosen, and
 * appending without overflow. */
#include "tests/unit/helpers.h"

#include <string.h>

#include "common/errors.h"
#include "tools/disk/rootarg.h"

static void test_has_root(void **state)
{
	(void)state;
	assert_true(cmdline_has_root("root=/dev/sda1"));
	assert_true(cmdline_has_root("console=ttyS0  root=PARTUUID=x quiet"));
	assert_true(cmdline_has_root("quiet\troot="));
	/* a word that only contains or starts like root= is another parameter */
	assert_false(cmdline_has_root("noroot=1 rootwait rootfstype=ext4 xroot=/dev/sda"));
	assert_false(cmdline_has_root("console=ttyS0,root=/dev/sda"));
	assert_false(cmdline_has_root(""));
	assert_false(cmdline_has_root(NULL));
}

static void test_partuuid(void **state)
{
	(void)state;
	struct disk_info di;
	struct part_info parts[3];
	char arg[80];

	memset(&di, 0, sizeof di);
	memset(parts, 0, sizeof parts);
	di.parts = parts;
	di.nparts = 3;
	di.esp = 1;
	di.label = LABEL_GPT;
	parts[0].type_guid = GUID_BIOS_BOOT;
	parts[1].type_guid = GUID_ESP;
	parts[2].type_guid = GUID_LINUX_FS;
	parts[2].number = 3;
	assert_true(guid_parse("0FC63DAF-8483-4772-8E79-3D69D8477DE4", &parts[2].unique));
	assert_int_equal(root_part_index(&di), 2);
	root_partuuid_arg(&di, &parts[2], arg, sizeof arg);
	assert_string_equal(arg, "root=PARTUUID=0fc63daf-8483-4772-8e79-3d69d8477de4");

	/* MBR: signature and partition number, the kernel's "%08x-%02x" */
	di.label = LABEL_MBR;
	di.mbr.disk_sig = 0x0A1B2C3D;
	di.nparts = 2;
	di.esp = 0;
	parts[0].mbr_type = MBR_TYPE_LINUX; /* the boot partition itself is never the root */
	parts[1].mbr_type = MBR_TYPE_LINUX;
	parts[1].number = 12;
	assert_int_equal(root_part_index(&di), 1);
	root_partuuid_arg(&di, &parts[1], arg, sizeof arg);
	assert_string_equal(arg, "root=PARTUUID=0a1b2c3d-0c");
	parts[1].mbr_type = 0x07;
	assert_int_equal(root_part_index(&di), -1);
}

static void test_append(void **state)
{
	(void)state;
	char out[16];

	assert_int_equal(cmdline_append("quiet", "root=x", out, sizeof out), 0);
	assert_string_equal(out, "quiet root=x");
	assert_int_equal(cmdline_append(NULL, "root=x", out, sizeof out), 0);
	assert_string_equal(out, "root=x");
	assert_int_equal(cmdline_append("", "root=x", out, sizeof out), 0);
	assert_string_equal(out, "root=x");
	/* 15 characters fit 16 bytes; 16 do not */
	assert_int_equal(cmdline_append("console=", "root=x", out, sizeof out), 0);
	assert_int_equal(cmdline_append("console=x", "root=x", out, sizeof out), AS_ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_has_root),
		cmocka_unit_test(test_partuuid),
		cmocka_unit_test(test_append),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
