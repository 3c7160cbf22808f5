/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector: lays disks out aligned for any sector size and installs the boot stages.
 * Usage and every flag: anysector --help, anysector COMMAND --help, anysector(8). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "tools/base/exit_codes.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"
#include "tools/cmd/cli.h"
#include "tools/cmd/cmd_add.h"
#include "tools/cmd/cmd_bless.h"
#include "tools/cmd/cmd_info.h"
#include "tools/cmd/cmd_install.h"
#include "tools/cmd/cmd_list.h"
#include "tools/cmd/cmd_mkimage.h"
#include "tools/cmd/cmd_partition.h"
#include "tools/cmd/cmd_remove_set_default.h"
#include "tools/cmd/cmd_repair.h"
#include "tools/cmd/cmd_restore.h"
#include "tools/cmd/cmd_status.h"

#ifndef ANYSECTOR_VERSION
#define ANYSECTOR_VERSION "0.1"
#endif

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *summary;
} commands[] = {
	{ "info", cmd_info, "show topology, label and partitions (and their alignment)" },
	{ "check", cmd_check, "validate tables, alignment and boot code; exit 0/1/2" },
	{ "partition", cmd_partition, "write a new aligned GPT or MBR layout and format the ESP" },
	{ "install", cmd_install, "install stage1, stage2 and BOOTX64.EFI (journalled)" },
	{ "add", cmd_add, "copy a kernel (and initrds) to the ESP and add a boot entry" },
	{ "list", cmd_list, "show the boot menu the loaders build (anysector.cfg + /loader/entries)" },
	{ "remove", cmd_remove, "remove a boot entry and the files only it uses" },
	{ "set-default", cmd_set_default, "make a boot entry the default" },
	{ "bless", cmd_bless, "mark the running boot good (boot counting)" },
	{ "status", cmd_status, "this boot: loader, entry, tries left, pending one-shot" },
	{ "mkimage", cmd_mkimage, "make a bootable sparse disk image in one step" },
	{ "restore", cmd_restore, "undo an install from its backup file" },
	{ "repair", cmd_repair, "rebuild the broken half of a dual GPT (journalled)" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector COMMAND [options] TARGET ...\n"
		"\n"
		"TARGET is a whole-disk block device or a disk image file.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"'anysector COMMAND --help' shows a command's options; anysector(8) has the details.\n"
		"Exit status: 0 ok, 1 check found warnings, 2 errors/failure/damaged input,\n"
		"3 refused by a safety rule (nothing written), 64 bad command line.\n");
}

int main(int argc, char **argv)
{
	static struct report rep;
	report_init(&rep, true);
	g_report = &rep;
	/* mtools must not second-guess geometry of our (sector-size-correct) images */
	setenv("MTOOLS_SKIP_CHECK", "1", 1);

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("anysector %s\n", ANYSECTOR_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			/* what a killed run left in $TMPDIR goes before this one makes its own */
			temp_sweep();
			int rc = commands[i].run(argc - 1, argv + 1);
			fflush(stdout);
			report_free(&rep);
			return rc;
		}
	}
	fprintf(stderr, "anysector: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
