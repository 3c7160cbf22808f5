/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector remove and set-default: one entry of the boot menu, by name
 * (tools/ops/remove_set_default.c). */
#include "tools/cmd/cmd_remove_set_default.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/cmd/cli.h"
#include "tools/cmd/sign_options.h"
#include "tools/ops/remove_set_default.h"

static void usage(FILE *f, bool remove)
{
	if (remove)
		fprintf(f,
			"usage: anysector remove [options] TARGET NAME\n"
			"\n"
			"Removes the boot menu entry NAME (see 'anysector list'): its lines in\n"
			"anysector.cfg, or its /loader/entries file, and the kernel and initrds that no\n"
			"other entry uses (a file another entry uses is kept), then directories that is\n"
			"leaves empty. A default naming it goes too. The new menu is checked as the\n"
			"loaders read it before anything is written. Refused (exit 3): no such entry,\n"
			"the last entry (unless --force).\n");
	else
		fprintf(f,
			"usage: anysector set-default [options] [--once] TARGET NAME\n"
			"\n"
			"Makes the boot menu entry NAME (see 'anysector list'; an anysector.cfg entry or\n"
			"a /loader/entries one) the default: 'default NAME' in anysector.cfg, which is\n"
			"made when there is none. With --once, NAME boots at the next boot only (a\n"
			"one-shot in the boot state block, which both loaders honour and drop), then\n"
			"the default again. Refused (exit 3): no such entry; --once without a boot\n"
			"state block.\n");
	fprintf(f,
		"\n"
		"options:\n"
		"  --backup FILE        save the sectors it replaces to FILE first (for restore)\n"
		"  --dry-run            print every write and change nothing\n"
		"%s" RESIGN_HELP TOPO_HELP LOCK_HELP,
		remove ? "  --force              remove the last entry too\n"
		       : "  --once               the next boot only\n");
}

static int entry_command(int argc, char **argv, bool remove)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		RESIGN_LONG_OPTIONS,
		{ "backup", required_argument, NULL, OPT_BACKUP },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ 0 },
	};
	const char *cmd = remove ? "remove" : "set-default";
	struct common_opts o = { 0 };
	struct efi_signing sg = { 0 };
	const char *backup = NULL;
	bool once = false;
	int c, rc;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		enum opt_result r = signing_option(c, optarg, &sg, cmd);
		if (r == OPTION_BAD)
			return EXIT_USAGE;
		if (r == OPTION_TAKEN)
			continue;
		switch (c) {
		case OPT_BACKUP: backup = optarg; break;
		case OPT_ONCE: once = true; break;
		case OPT_HELP: usage(stdout, remove); return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option(cmd);
		}
	}
	if (optind + 2 != argc)
		return usage_error(cmd, "%s needs a TARGET and an entry NAME", cmd);
	if (o.force && !remove)
		return usage_error(cmd, "--force is for remove only");
	if (once && remove)
		return usage_error(cmd, "--once is for set-default only");
	if ((rc = signing_finish(&sg, cmd)))
		return rc;

	struct hostdev h;
	struct txn t;
	memset(&t, 0, sizeof t);
	if (!(rc = open_target_live(&h, argv[optind], !o.dry_run, &o.topo)) &&
	    !(rc = txn_begin(&t, &h))) {
		t.dry_run = o.dry_run;
		t.force = o.force;
		t.journal = backup != NULL;
		t.backup = backup;
		t.sign = sg;
		const char *name = argv[optind + 1];
		rc = remove ? txn_remove(&t, name) : once ? txn_set_oneshot(&t, name)
			    : txn_set_default(&t, name);
		if (!rc)
			rc = txn_commit(&t);
	}
	txn_end(&t);
	hostdev_close(&h);
	return rc;
}

int cmd_remove(int argc, char **argv)
{
	return entry_command(argc, argv, true);
}

int cmd_set_default(int argc, char **argv)
{
	return entry_command(argc, argv, false);
}
