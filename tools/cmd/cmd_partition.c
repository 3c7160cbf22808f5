/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector partition: the command line of a new aligned layout (tools/ops/partition.c). */
#include "tools/cmd/cmd_partition.h"

#include <errno.h>
#include <getopt.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "tools/base/exit_codes.h"
#include "tools/cmd/cli.h"
#include "tools/dev/mounts.h"
#include "tools/disk/foreign.h"
#include "tools/ops/partition.h"


static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector partition [options] TARGET\n"
		"\n"
		"Writes a new partition table with every partition start aligned to the drive's\n"
		"physical sectors, io_min/io_opt and 1 MiB, and formats the ESP with mkfs.fat.\n"
		"GPT: BIOS boot (1 MiB) + ESP + the rest as a Linux filesystem partition.\n"
		"MBR: FAT boot partition (type 0xEF, active) + the rest (0x83).\n"
		"--sector-size any: one GPT layout for 512- and 4096-byte sectors (two GPTs, the\n"
		"same partitions at the same byte ranges, the ESP's FAT with 4096-byte sectors).\n"
		"\n"
		"options:\n" LAYOUT_HELP
		"  --force              replace what the disk holds: every partition table and\n"
		"                       filesystem signature libblkid finds is erased first (as wipefs\n"
		"                       does), its sectors saved to the backup file\n"
		"  --backup FILE        where --force saves the sectors it erases signatures from\n"
		"                       (default: IMAGE.anysector-backup, ./anysector-backup-DEV)\n"
		"  --dry-run            print the erasures and the layout, write nothing\n" TOPO_HELP LOCK_HELP);
}

int cmd_partition(int argc, char **argv)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		LAYOUT_LONG_OPTIONS,
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "backup", required_argument, NULL, OPT_BACKUP },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	struct layout_opts lo = { .label = LABEL_GPT };
	struct common_opts o = { 0 };
	const char *backup = NULL;
	int c, rc;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		enum opt_result r = layout_option(c, optarg, &lo, "partition");
		if (r == OPTION_BAD)
			return EXIT_USAGE;
		if (r == OPTION_TAKEN)
			continue;
		switch (c) {
		case OPT_BACKUP: backup = optarg; break;
		case OPT_HELP: usage(stdout); return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option("partition");
		}
	}
	if (optind + 1 != argc)
		return usage_error("partition", "partition needs exactly one TARGET");

	struct hostdev h;
	struct probe_result found;
	lo.dual = o.topo.any_lss;
	if ((rc = open_target_layout(&h, argv[optind], !o.dry_run, &o.topo)))
		goto out;
	if ((rc = refuse_if_in_use(&h)) || (rc = foreign_scan_disk(&h, &found)))
		goto out;
	if (found.n && !o.force) {
		char what[200];
		for (unsigned i = 0; i < found.n; i++)
			t_error("refuse.existing", "%s already holds %s", h.path,
				probe_hit_text(&found.hit[i], what, sizeof what));
		t_error("refuse.existing",
			"use --force to erase %s and write the new layout (everything on the disk will "
			"be lost)",
			found.n == 1 ? "it" : "them");
		rc = EXIT_REFUSED;
		goto out;
	}
	if (found.n && (rc = partition_erase_found(&h, &found, backup, o.dry_run)))
		goto out;
	rc = partition_disk(&h, &lo, o.dry_run);
out:
	hostdev_close(&h);
	return rc;
}
