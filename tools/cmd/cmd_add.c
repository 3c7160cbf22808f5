/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector add: kernels and initrds onto the ESP, entries into anysector.cfg (tools/ops/add.c). */
#include "tools/cmd/cmd_add.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/cmd/cli.h"
#include "tools/cmd/sign_options.h"
#include "tools/cmd/entry_options.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector add [options] TARGET --kernel FILE [--initrd FILE]...\n"
		"       anysector add [options] TARGET --uki FILE\n"
		"\n"
		"Copies the kernel and its initrds into a directory named after the entry on the\n"
		"boot partition (the ESP), or a unified kernel image to /EFI/Linux/NAME.efi, and\n"
		"adds an entry to anysector.cfg, creating it. The name\n"
		"must be free (anysector.cfg's and /loader/entries' names); the new boot menu is\n"
		"validated as the loaders read it before anything is written.\n"
		"\n"
		"options:\n" ENTRY_HELP
		"  --replace            an anysector.cfg entry of the same name is replaced: its\n"
		"                       lines go, and its files that no entry uses any more\n"
		"  --timeout S          also set the menu's countdown in anysector.cfg (0..3600 s)\n"
		"  --backup FILE        save the sectors it replaces to FILE first (for restore)\n"
		"  --dry-run            print every write and change nothing\n" RESIGN_HELP TOPO_HELP
		LOCK_HELP);
}

int cmd_add(int argc, char **argv)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		ENTRY_LONG_OPTIONS,
		RESIGN_LONG_OPTIONS,
		{ "backup", required_argument, NULL, OPT_BACKUP },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "replace", no_argument, NULL, OPT_REPLACE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	struct common_opts o = { 0 };
	struct entry_list l;
	struct efi_signing sg = { 0 };
	const char *backup = NULL;
	bool replace = false, has_timeout = false;
	unsigned timeout = 0;
	int c, rc;

	memset(&l, 0, sizeof l);
	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		enum opt_result r = entry_option(c, optarg, &l, "add");
		if (r == OPTION_OTHER)
			r = signing_option(c, optarg, &sg, "add");
		if (r == OPTION_BAD)
			return EXIT_USAGE;
		if (r == OPTION_TAKEN)
			continue;
		switch (c) {
		case OPT_BACKUP: backup = optarg; break;
		case OPT_REPLACE: replace = true; break;
		case OPT_TIMEOUT:
			if (!parse_seconds(optarg, &timeout))
				return usage_error("add", "--timeout %s: not a number of seconds from 0 to "
						   "%u", optarg, CFG_TIMEOUT_MAX);
			has_timeout = true;
			break;
		case OPT_HELP: usage(stdout); return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option("add");
		}
	}
	if (optind + 1 != argc)
		return usage_error("add", "add needs exactly one TARGET");
	if ((rc = entry_finish(&l, "add", true)) || (rc = signing_finish(&sg, "add")))
		return rc;

	struct hostdev h;
	struct txn t;
	memset(&t, 0, sizeof t);
	if (!(rc = open_target_live(&h, argv[optind], !o.dry_run, &o.topo)) &&
	    !(rc = txn_begin(&t, &h))) {
		t.dry_run = o.dry_run;
		t.journal = backup != NULL;
		t.backup = backup;
		t.replace = replace;
		t.sign = sg;
		if (has_timeout) {
			t.set_timeout = true;
			t.cfg_timeout = timeout;
		}
		if (!(rc = txn_add(&t, l.e, l.n)))
			rc = txn_commit(&t);
	}
	txn_end(&t);
	hostdev_close(&h);
	return rc;
}
