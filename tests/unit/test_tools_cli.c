/* SPDX-License-Identifier: BSD-2-Clause */
/* The option handling the installer's commands share (tools/cmd/cli.c): the layout options of
 * partition and mkimage, and next_option, which takes the topology flags, --force and --dry-run
 * off every command's getopt loop. */
#include "tests/unit/helpers.h"
#include "tests/unit/tools_fixture.h"

#include <string.h>

#include "common/bits.h"
#include "tools/cmd/cli.h"
#include "tools/base/util.h"


static void test_layout_option(void **state)
{
	(void)state;
	struct layout_opts lo = { .label = LABEL_GPT };

	assert_int_equal(layout_option(OPT_LABEL, "mbr", &lo, "t"), OPTION_TAKEN);
	assert_int_equal(lo.label, LABEL_MBR);
	assert_int_equal(layout_option(OPT_LABEL, "gpt", &lo, "t"), OPTION_TAKEN);
	assert_int_equal(lo.label, LABEL_GPT);
	assert_int_equal(layout_option(OPT_LABEL, "dos", &lo, "t"), OPTION_TAKEN);
	assert_int_equal(lo.label, LABEL_MBR);
	assert_int_equal(layout_option(OPT_ESP_SIZE, "16M", &lo, "t"), OPTION_TAKEN);
	assert_int_equal(lo.esp_bytes, 16u << 20);
	assert_int_equal(layout_option(OPT_NO_REST, NULL, &lo, "t"), OPTION_TAKEN);
	assert_true(lo.no_rest);
	assert_int_equal(layout_option(OPT_DOS_COMPAT, NULL, &lo, "t"), OPTION_TAKEN);
	assert_true(lo.dos_compat);
	assert_int_equal(unit_report.n, 0);

	/* bad values are reported as usage errors naming the option and leave the value alone */
	assert_int_equal(layout_option(OPT_LABEL, "msdos2", &lo, "t"), OPTION_BAD);
	assert_int_equal(lo.label, LABEL_MBR);
	assert_int_equal(layout_option(OPT_ESP_SIZE, "0", &lo, "t"), OPTION_BAD);
	assert_int_equal(layout_option(OPT_ESP_SIZE, "1.5G", &lo, "t"), OPTION_BAD);
	assert_int_equal(lo.esp_bytes, 16u << 20);
	assert_int_equal(unit_report.n, 3);
	assert_non_null(strstr(unit_report.items[0].msg, "--label msdos2"));
	assert_non_null(strstr(unit_report.items[1].msg, "--esp-size 0"));

	/* other options are not its business */
	assert_int_equal(layout_option(OPT_SECTOR_SIZE, "4096", &lo, "t"), OPTION_OTHER);
	assert_int_equal(unit_report.n, 3);
}

static const struct option opts[] = {
	TOPO_LONG_OPTIONS,
	LAYOUT_LONG_OPTIONS,
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ 0 },
};

static void test_next_option(void **state)
{
	(void)state;
	char *argv[] = { "t", "--sector-size", "4096", "--force", "--label", "mbr", "--io-opt",
			 "1M", "--dry-run", "--help", "disk.img", NULL };
	int argc = (int)ARRAY_SIZE(argv) - 1;
	struct common_opts o = { 0 };

	optind = 1;
	/* the command sees only its own options, in order; the common ones land in o */
	assert_int_equal(next_option(argc, argv, opts, &o), OPT_LABEL);
	assert_string_equal(optarg, "mbr");
	assert_true(o.topo.has_lss && o.topo.lss == 4096);
	assert_true(o.force);
	assert_false(o.dry_run);
	assert_int_equal(next_option(argc, argv, opts, &o), OPT_HELP);
	assert_true(o.dry_run);
	assert_true(o.topo.has_io_opt && o.topo.io_opt == 1u << 20);
	assert_false(o.topo.has_pss);
	assert_int_equal(next_option(argc, argv, opts, &o), -1);
	assert_int_equal(optind, argc - 1);
	assert_string_equal(argv[optind], "disk.img");
	assert_int_equal(unit_report.n, 0);
}

static void test_next_option_bad_value(void **state)
{
	(void)state;
	char *argv[] = { "t", "--physical-size", "lots", "--force", NULL };
	struct common_opts o = { 0 };

	optind = 1;
	assert_int_equal(next_option(4, argv, opts, &o), OPT_FAILED);
	assert_int_equal(unit_report.n, 1);
	assert_non_null(strstr(unit_report.items[0].msg, "--physical-size lots"));
	assert_false(o.topo.has_pss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_layout_option, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_next_option, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_next_option_bad_value, tools_setup, tools_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
