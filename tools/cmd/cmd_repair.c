/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector repair: rebuilds the broken half of a dual GPT (tools/disk/dual.h) from the intact one,
 * journalled like install. */
#include "tools/cmd/cmd_repair.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/cmd/cli.h"
#include "tools/dev/hostdev_open.h"
#include "tools/dev/mounts.h"
#include "tools/disk/dual.h"
#include "tools/disk/dual_repair.h"
#include "tools/disk/inspect.h"
#include "tools/plan/journal.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector repair [options] TARGET\n"
		"\n"
		"Rebuilds both GPTs of a dual-GPT disk ('mkimage --sector-size any') from the table\n"
		"that is intact: after a tool or firmware rewrote the disk at one sector size (sgdisk\n"
		"at 4096 drops the 512-byte GPT; OVMF restoring a damaged 512-byte primary GPT writes\n"
		"over the 4096-byte one). Partitions and their GUIDs stay; only the GPT headers and\n"
		"entry arrays of both sizes (and the protective MBR's size) are written. The original\n"
		"bytes of every sector it replaces are saved to a backup file first.\n"
		"\n"
		"options:\n"
		"  --from 512|4096      rebuild from this size's GPT (needed when the valid GPTs\n"
		"                       disagree, e.g. after one size's table was edited)\n"
		"  --backup FILE        where to save the replaced sectors (default as for install)\n"
		"  --dry-run            print every write and change nothing\n" TOPO_HELP LOCK_HELP);
}

/* The disk's dual GPT: NULL (reported) when it has none. */
static struct dual_state *inspect_dual(struct hostdev *h, struct disk_info *di)
{
	struct report q;

	report_init(&q, false);
	int rc = disk_inspect(h, di, false, &q);
	report_free(&q);
	if (rc)
		return NULL;
	if (!di->dual)
		t_error("repair.not_dual",
			"%s holds no dual GPT (no GPT of this disk at both 512- and 4096-byte sectors, "
			"nor the remains of one): repair rebuilds dual GPTs only",
			h->path);
	return di->dual;
}

static int repair(struct hostdev *h, uint32_t from, const char *backup, bool dry_run)
{
	struct disk_info di;
	struct plan p;
	char path[4200];
	uint32_t src_lss = 0;
	const char *which = "";
	int rc;

	plan_init(&p, h->topo.lss);
	struct dual_state *s = inspect_dual(h, &di);
	if (!s) {
		rc = EXIT_ERRORS;
		goto out;
	}
	if (s->clean && !from) {
		printf("%s: the dual GPT is intact (both sizes valid and agreeing); nothing to repair\n",
		       h->path);
		rc = EXIT_OK;
		goto out;
	}
	const struct gpt *src;
	if ((rc = dual_repair_source(s, from, &src, &src_lss, &which)) ||
	    (rc = dual_repair_plan(h, s, src, src_lss, &p)))
		goto out;
	printf("%s: rebuilding both GPTs from the %u-byte GPT (%s header, %u partitions)\n", h->path,
	       (unsigned)src_lss, which, src->count);
	if (!p.n) {
		printf("nothing differs from the rebuilt layout; nothing to write\n");
		goto out;
	}
	if (backup)
		snprintf(path, sizeof path, "%s", backup);
	else if ((rc = journal_default_path(h, path, sizeof path)))
		goto out;
	if (!access(path, F_OK)) {
		t_error("refuse.backup_exists",
			"the backup file %s exists already; choose another --backup (an earlier backup "
			"is never overwritten)",
			path);
		rc = EXIT_REFUSED;
		goto out;
	}
	plan_print(&p, stdout);
	if (dry_run) {
		printf("would first save the original bytes of %llu sectors to %s\n",
		       (unsigned long long)plan_sectors(&p), path);
		printf("dry run: %u writes, %llu sectors; nothing was written\n", p.n,
		       (unsigned long long)plan_sectors(&p));
		goto out;
	}
	if ((rc = journal_write(path, h, &p)))
		goto out;
	printf("saved the original bytes of %llu sectors to %s (undo: anysector restore %s %s)\n",
	       (unsigned long long)plan_sectors(&p), path, h->path, path);
	if ((rc = plan_execute(h, &p)) || (rc = hostdev_sync(h)))
		goto out;
	disk_info_free(&di);
	s = inspect_dual(h, &di);
	if (!s || !s->clean) {
		t_error("repair.verify", "%s: after the repair the dual GPT is still not intact (see "
			"'anysector check'); 'anysector restore %s %s' puts the old bytes back",
			h->path, h->path, path);
		rc = EXIT_ERRORS;
		goto out;
	}
	printf("%s: both GPTs valid and agreeing (512 and 4096-byte sectors)\n", h->path);
out:
	plan_free(&p);
	disk_info_free(&di);
	return rc;
}

int cmd_repair(int argc, char **argv)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		{ "from", required_argument, NULL, OPT_FROM },
		{ "backup", required_argument, NULL, OPT_BACKUP },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	struct common_opts o = { 0 };
	const char *backup = NULL;
	uint32_t from = 0;
	int c, rc;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		switch (c) {
		case OPT_FROM:
			if (!parse_u32(optarg, &from) || dual_half_index(from) < 0)
				return usage_error("repair", "--from %s: give %u or %u", optarg,
						   DUAL_SMALL_LSS, DUAL_LARGE_LSS);
			break;
		case OPT_BACKUP: backup = optarg; break;
		case OPT_HELP: usage(stdout); return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option("repair");
		}
	}
	if (optind + 1 != argc)
		return usage_error("repair", "repair needs exactly one TARGET");

	struct hostdev h;
	if (!(rc = open_target(&h, argv[optind], !o.dry_run, &o.topo)) &&
	    !(rc = refuse_if_in_use(&h)))
		rc = repair(&h, from, backup, o.dry_run);
	hostdev_close(&h);
	return rc;
}
