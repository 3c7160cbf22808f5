/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector status: this boot as the loaders left it, read only. Under UEFI from the Boot Loader
 * Interface's variables (which loader, firmware, entry, counted file, times); under either
 * firmware from TARGET's boot state block (the pending one-shot, the boot stage2 recorded and
 * the tries it counted). */
#include "tools/cmd/cmd_status.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bls.h"
#include "common/bootstate.h"
#include "tools/base/exit_codes.h"
#include "tools/base/json.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"
#include "tools/cmd/cli.h"
#include "tools/dev/efivars.h"

#define VAL_MAX 512

struct status {
	bool uefi;                       /* this system came up through UEFI */
	char loader[VAL_MAX], fw_type[VAL_MAX], fw_info[VAL_MAX], entry[VAL_MAX];
	char count_path[VAL_MAX];        /* LoaderBootCountPath, "" when none */
	char os_oneshot[VAL_MAX];        /* LoaderEntryOneShot the OS has set for the next boot */
	char t_init[32], t_exec[32];     /* microseconds, as text */
	bool has_state;                  /* TARGET has a boot state block with a whole copy */
	char oneshot[BSTATE_NAME_MAX + 1];       /* the block's pending one-shot, "" none */
	char booted[BSTATE_NAME_MAX + 1];        /* the block's recorded boot, "" none */
	unsigned booted_fw, booted_flags;
	int left, done;                  /* the current boot's tries (file or block), -1 unknown */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector status [--json] TARGET\n"
		"\n"
		"Shows this boot as the loaders left it: which loader started it and which entry, a\n"
		"counted entry's tries left, the one-shot waiting for the next boot, and under UEFI\n"
		"the firmware and the loader's times (systemd's Boot Loader Interface variables).\n"
		"TARGET is the disk this system booted from (its boot state block). Reads only.\n"
		"\n"
		"options:\n"
		"  --json               machine-readable output\n" TOPO_HELP LOCK_HELP);
}

/* The tries in a counted file's name ("x+1-2.conf": 1 left, 2 done). */
static void file_tries(const char *path, struct status *st)
{
	struct bls_entry *e = xcalloc(1, sizeof *e);

	if (bls_name_check(path, e, NULL) && e->tries_left >= 0) {
		st->left = e->tries_left;
		st->done = e->tries_done;
	}
	free(e);
}

static void read_uefi(struct status *st)
{
	const char *dir = efivars_dir();

	st->uefi = dir != NULL;
	efivar_loader_str(dir, "LoaderInfo", st->loader, VAL_MAX);
	efivar_loader_str(dir, "LoaderFirmwareType", st->fw_type, VAL_MAX);
	efivar_loader_str(dir, "LoaderFirmwareInfo", st->fw_info, VAL_MAX);
	efivar_loader_str(dir, "LoaderEntrySelected", st->entry, VAL_MAX);
	efivar_loader_str(dir, "LoaderEntryOneShot", st->os_oneshot, VAL_MAX);
	efivar_loader_str(dir, "LoaderTimeInitUSec", st->t_init, sizeof st->t_init);
	efivar_loader_str(dir, "LoaderTimeExecUSec", st->t_exec, sizeof st->t_exec);
	if (efivar_loader_str(dir, "LoaderBootCountPath", st->count_path, VAL_MAX)) {
		for (char *p = st->count_path; *p; p++)
			if (*p == '\\')
				*p = '/';
		file_tries(st->count_path, st);
	}
}

static void read_state(struct hostdev *h, struct status *st)
{
	struct bstate_disk *d = xcalloc(1, sizeof *d);
	const char *why;
	uint8_t *live, *r;

	if (!bstate_disk_read(&h->dev, d, &why) && d->offset && d->io.live >= 0) {
		st->has_state = true;
		live = d->io.copy[d->io.live];
		if ((r = bstate_find(live, BSTATE_ONESHOT, NULL)))
			bstate_name(r, st->oneshot, sizeof st->oneshot);
		if ((r = bstate_find(live, BSTATE_BOOTED, NULL))) {
			bstate_name(r, st->booted, sizeof st->booted);
			st->booted_fw = r[2];
			st->booted_flags = r[3];
		}
		if (!st->count_path[0] && (st->booted_flags & BSTATE_BOOTED_COUNTED) &&
		    (r = bstate_find(live, BSTATE_TRIES, st->booted))) {
			st->left = r[2];
			st->done = r[3];
		}
	}
	free(d);
}

static void print_text(const struct status *st)
{
	const char *by = st->booted_fw == BSTATE_FW_UEFI ? "BOOTX64.EFI" : "stage2";

	if (!st->uefi)
		printf("firmware     BIOS (no UEFI variables)\n");
	else if (st->fw_type[0] || st->fw_info[0])
		printf("firmware     UEFI (%s%s%s)\n", st->fw_type,
		       st->fw_type[0] && st->fw_info[0] ? ", " : "", st->fw_info);
	else
		printf("firmware     UEFI\n");
	if (st->loader[0])
		printf("loader       %s (LoaderInfo)\n", st->loader);
	else if (st->booted[0])
		printf("loader       %s of anysector (the boot state block)\n", by);
	else
		printf("loader       not known (%s)\n", st->uefi ? "no LoaderInfo: not a loader of "
		       "systemd's Boot Loader Interface" : "stage2 records a boot only when it was "
		       "counted or the one-shot");
	if (st->entry[0])
		printf("entry        %s (LoaderEntrySelected)\n", st->entry);
	else if (st->booted[0])
		printf("entry        %s, started last by %s%s%s\n", st->booted, by,
		       st->booted_flags & BSTATE_BOOTED_COUNTED ? ", counted" : "",
		       st->booted_flags & BSTATE_BOOTED_ONESHOT ? ", as the one-shot" : "");
	if (st->left >= 0)
		printf("tries        %d left, %d done (%s); 'anysector bless' marks it good\n",
		       st->left, st->done, st->count_path[0] ? st->count_path : "the boot state block");
	else
		printf("tries        not counted\n");
	printf("one-shot     %s%s%s\n", st->oneshot[0] ? st->oneshot : "none",
	       st->os_oneshot[0] ? "; LoaderEntryOneShot " : "", st->os_oneshot);
	if (st->t_init[0] || st->t_exec[0])
		printf("loader time  %s us at start, %s us at the kernel's start (LoaderTimeInitUSec, "
		       "LoaderTimeExecUSec)\n", st->t_init[0] ? st->t_init : "?",
		       st->t_exec[0] ? st->t_exec : "?");
}

static void print_json(const struct status *st)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "firmware", st->uefi ? "uefi" : "bios");
	json_str(&j, "firmware_type", st->fw_type);
	json_str(&j, "firmware_info", st->fw_info);
	json_str(&j, "loader", st->loader);
	json_str(&j, "entry", st->entry[0] ? st->entry : st->booted);
	json_str(&j, "boot_count_path", st->count_path);
	if (st->left >= 0) {
		json_i64(&j, "tries_left", st->left);
		json_i64(&j, "tries_done", st->done);
	} else {
		json_null(&j, "tries_left");
		json_null(&j, "tries_done");
	}
	json_bool(&j, "state_block", st->has_state);
	json_str(&j, "oneshot", st->oneshot);
	json_str(&j, "loader_entry_oneshot", st->os_oneshot);
	json_str(&j, "booted", st->booted);
	json_str(&j, "booted_by", !st->booted[0] ? "" : st->booted_fw == BSTATE_FW_UEFI
		 ? "BOOTX64.EFI" : "stage2");
	json_bool(&j, "booted_counted", st->booted_flags & BSTATE_BOOTED_COUNTED);
	json_bool(&j, "booted_oneshot", st->booted_flags & BSTATE_BOOTED_ONESHOT);
	json_str(&j, "time_init_usec", st->t_init);
	json_str(&j, "time_exec_usec", st->t_exec);
	json_obj_end(&j);
	json_finish(&j);
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	struct common_opts o = { 0 };
	bool json = false;
	int c, rc;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		switch (c) {
		case OPT_JSON: json = true; break;
		case OPT_HELP: usage(stdout); return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option("status");
		}
	}
	if (optind + 1 != argc)
		return usage_error("status", "status needs the TARGET this system booted from");

	struct hostdev h;
	struct status *st = xcalloc(1, sizeof *st);
	st->left = st->done = -1;
	if (!(rc = open_target(&h, argv[optind], false, &o.topo))) {
		read_uefi(st);
		read_state(&h, st);
		if (json)
			print_json(st);
		else
			print_text(st);
		hostdev_close(&h);
	}
	free(st);
	return rc;
}
