/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector install: stage1 into LBA 0, stage2 into the BIOS boot partition or the MBR gap,
 * BOOTX64.EFI onto the ESP; journalled, read back, LBA 0 last (tools/ops/install.c). */
#include "tools/cmd/cmd_install.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/boot/efisig.h"
#include "tools/cmd/cli.h"
#include "tools/cmd/sign_options.h"
#include "tools/ops/install.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector install [options] TARGET\n"
		"\n"
		"Installs the boot stages on a partitioned disk: stage1 into bytes 0..439 of LBA 0\n"
		"(disk signature, partition table, 0x55AA and bytes 0xDA..0xDF kept), stage2 into the\n"
		"BIOS boot partition (GPT) or the gap after the MBR, at a whole logical and physical\n"
		"sector, and \\EFI\\BOOT\\BOOTX64.EFI onto the ESP. The original bytes of every sector\n"
		"it replaces are saved to a backup file first ('anysector restore' puts them back).\n"
		"On a running UEFI system whose firmware boots TARGET (and with --uefi-only) the\n"
		"loader also goes into \\EFI\\anysector\\ with a firmware boot entry (Boot####, first\n"
		"in BootOrder); \\EFI\\BOOT\\BOOTX64.EFI is then written only where it is free or\n"
		"anysector's. Without the boot entry, a BOOTX64.EFI anysector did not write is refused.\n"
		"\n"
		"options:\n"
		"  --stages DIR         stage1.bin, stage2.bin, BOOTX64.EFI (default: $ANYSECTOR_STAGES,\n"
		"                       the build tree's stages/, then the installed copies)\n"
		"  --backup FILE        where to save the replaced sectors (default: IMAGE.anysector-backup\n"
		"                       next to an image, ./anysector-backup-DEV for a device)\n"
		"  --dry-run            print every write (LBA, bytes, what) and change nothing\n"
		"  --force              overwrite data in the gap, and an \\EFI\\BOOT\\BOOTX64.EFI, that\n"
		"                       are not anysector's\n"
		"  --uefi-only          install for UEFI alone, beside another system: no stage1 or\n"
		"                       stage2 (LBA 0's boot code and the gap stay as they are; no\n"
		"                       BIOS boot partition needed)\n"
		"  --no-nvram           write no firmware boot entry\n"
		SIGNING_HELP TOPO_HELP LOCK_HELP);
}

int cmd_install(int argc, char **argv)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		SIGNING_LONG_OPTIONS,
		{ "stages", required_argument, NULL, OPT_STAGES },
		{ "backup", required_argument, NULL, OPT_BACKUP },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "uefi-only", no_argument, NULL, OPT_UEFI_ONLY },
		{ "no-nvram", no_argument, NULL, OPT_NO_NVRAM },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	struct common_opts o = { 0 };
	struct efi_signing sg = { 0 };
	const char *stages_opt = NULL, *backup = NULL;
	bool uefi_only = false, no_nvram = false;
	int c, rc;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		enum opt_result r = signing_option(c, optarg, &sg, "install");
		if (r == OPTION_BAD)
			return EXIT_USAGE;
		if (r == OPTION_TAKEN)
			continue;
		switch (c) {
		case OPT_STAGES: stages_opt = optarg; break;
		case OPT_BACKUP: backup = optarg; break;
		case OPT_UEFI_ONLY: uefi_only = true; break;
		case OPT_NO_NVRAM: no_nvram = true; break;
		case OPT_HELP: usage(stdout); return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option("install");
		}
	}
	if (optind + 1 != argc)
		return usage_error("install", "install needs exactly one TARGET");
	if ((rc = signing_finish(&sg, "install")))
		return rc;

	struct stages s;
	struct hostdev h;
	struct txn t;
	memset(&t, 0, sizeof t);
	if ((rc = stages_load(stages_opt, &s))) {
		stages_free(&s);
		return rc;
	}
	/* A dry run opens the target read-only: it cannot change a byte. */
	if (!(rc = open_target_live(&h, argv[optind], !o.dry_run, &o.topo)) &&
	    !(rc = txn_begin(&t, &h))) {
		t.dry_run = o.dry_run;
		t.force = o.force;
		t.backup = backup;
		t.sign = sg;
		t.lock_config = sg.lock;
		t.uefi_only = uefi_only;
		t.no_nvram = no_nvram;
		if (!(rc = txn_install(&t, &s)))
			rc = txn_commit(&t);
	}
	txn_end(&t);
	hostdev_close(&h);
	stages_free(&s);
	return rc;
}
