/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector restore: puts back every sector an install (or add) journalled. */
#include "tools/cmd/cmd_restore.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/cmd/cli.h"
#include "tools/dev/hostdev_open.h"
#include "tools/dev/mounts.h"
#include "tools/disk/topology.h"
#include "tools/plan/journal.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector restore [options] TARGET BACKUP\n"
		"\n"
		"Writes the original bytes saved in BACKUP (made by install, or add --backup) back to\n"
		"TARGET, LBA 0 first. Refuses when BACKUP is damaged or made for another disk size or\n"
		"sector size, and when a saved range no longer holds what the install wrote.\n"
		"\n"
		"options:\n"
		"  --force              restore even over ranges that changed since the install\n"
		"  --dry-run            print the writes and change nothing\n"
		"  --sector-size N      (block devices are checked against the backup's sector size;\n"
		"                       for an image the backup's own sector size is used)\n"
		LOCK_HELP);
}

int cmd_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	struct common_opts o = { 0 };
	int c, rc;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		switch (c) {
		case OPT_HELP: usage(stdout); return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option("restore");
		}
	}
	if (optind + 2 != argc)
		return usage_error("restore", "restore needs TARGET and BACKUP");

	struct hostdev h;
	if ((rc = hostdev_open(&h, argv[optind], !o.dry_run)))
		goto out;
	/* A device's sector size comes from the kernel; an image's from the backup itself. */
	if (h.is_block && (rc = topology_find(&h, &o.topo)))
		goto out;
	if ((rc = refuse_if_in_use(&h)))
		goto out;
	rc = journal_restore(&h, argv[optind + 1], o.force, o.dry_run);
out:
	hostdev_close(&h);
	return rc;
}
