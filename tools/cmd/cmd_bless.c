/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector bless: the running boot is good (tools/ops/bless.c). */
#include "tools/cmd/cmd_bless.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/cmd/cli.h"
#include "tools/ops/bless.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector bless [options] TARGET\n"
		"\n"
		"Marks the running boot good, as systemd-bless-boot does: the boot-counted\n"
		"/loader/entries file it started (under UEFI the one LoaderBootCountPath names,\n"
		"under BIOS the counted boot the boot state block records) is renamed to its name\n"
		"without the counter (new+1-1.conf becomes new.conf), and under BIOS its tries leave\n"
		"the state block. A boot that was not counted changes nothing (exit 0).\n"
		"\n"
		"options:\n"
		"  --backup FILE        save the sectors it replaces to FILE first (for restore)\n"
		"  --dry-run            print every write and change nothing\n"
		TOPO_HELP LOCK_HELP);
}

int cmd_bless(int argc, char **argv)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		{ "backup", required_argument, NULL, OPT_BACKUP },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	struct common_opts o = { 0 };
	const char *backup = NULL;
	int c, rc;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		switch (c) {
		case OPT_BACKUP: backup = optarg; break;
		case OPT_HELP: usage(stdout); return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option("bless");
		}
	}
	if (optind + 1 != argc)
		return usage_error("bless", "bless needs a TARGET (the disk this system booted from)");

	struct hostdev h;
	struct txn t;
	memset(&t, 0, sizeof t);
	if (!(rc = open_target_live(&h, argv[optind], !o.dry_run, &o.topo)) &&
	    !(rc = txn_begin(&t, &h))) {
		t.dry_run = o.dry_run;
		t.journal = backup != NULL;
		t.backup = backup;
		if (!(rc = txn_bless(&t)))
			rc = txn_commit(&t);
	}
	txn_end(&t);
	hostdev_close(&h);
	return rc;
}
