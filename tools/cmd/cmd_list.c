/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector list: the boot menu as the loaders will show it (tools/esp/bootmenu.c), read-only. */
#include "tools/cmd/cmd_list.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bootstate.h"
#include "common/errors.h"
#include "common/menu.h"
#include "common/pin.h"
#include "tools/base/exit_codes.h"
#include "tools/base/json.h"
#include "tools/base/text.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"
#include "tools/cmd/cli.h"
#include "tools/dev/mounts.h"
#include "tools/disk/inspect.h"
#include "tools/esp/bootmenu.h"
#include "tools/esp/espfs.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector list [--json] TARGET\n"
		"\n"
		"Shows the boot menu both loaders build from the boot partition: anysector.cfg's\n"
		"entries, then the Boot Loader Specification's (/loader/entries/*.conf, and the\n"
		"unified kernel images /EFI/Linux/*.efi) in its order,\n"
		"each with its name, title, kernel, initrds, command line, whether it is the default\n"
		"and the file it comes from; the timeout and where it comes from; the files the\n"
		"loaders leave out and why; on a disk whose stage2 is its legacy-gap build, what it\n"
		"cannot boot under BIOS (unified kernel images). Exit 0, or 2 when there is no menu\n"
		"the loaders accept (a damaged disk, no boot partition, an anysector.cfg that does\n"
		"not parse, no entry the legacy-gap stage2 can boot).\n"
		"\n"
		"options:\n"
		"  --json               machine-readable output\n" TOPO_HELP LOCK_HELP);
}

static const char *const kind_names[] = { "linux", "efi", "chainload", "uki" };

/* Where an entry comes from: anysector.cfg, a /loader/entries file (Type #1) or a unified kernel
 * image in /EFI/Linux (Type #2). */
static const char *source_name(const struct boot_menu *m, unsigned i)
{
	if (!m->src[i].bls)
		return "anysector.cfg";
	return m->cfg.entries[i].kind == CFG_KIND_UKI ? "uki" : "bls";
}

/* Whether the entry shows and starts under that firmware; gap: the disk's stage2 is its
 * legacy-gap build, which boots no unified kernel image (common/features.h). */
static bool shown_on(const struct boot_menu *m, unsigned i, enum cfg_firmware fw, bool gap)
{
	const struct cfg_entry *e = &m->cfg.entries[i];
	return cfg_entry_runs_on(e, fw) && !(gap && fw == CFG_FW_BIOS && e->kind == CFG_KIND_UKI);
}

static const char *firmware_text(const struct boot_menu *m, unsigned i, bool gap)
{
	bool bios = shown_on(m, i, CFG_FW_BIOS, gap), uefi = shown_on(m, i, CFG_FW_UEFI, gap);
	if (!bios && cfg_entry_runs_on(&m->cfg.entries[i], CFG_FW_BIOS))
		return "UEFI only (the legacy-gap stage2 on this disk cannot boot a unified kernel "
		       "image)";
	return bios && uefi ? "BIOS and UEFI" : bios ? "BIOS only" : "UEFI only";
}

/* The pin of slot s (common/pin.h) as hex into hex, or NULL when the file has none. */
static const char *pin_text(const struct cfg_entry *e, unsigned s, char hex[SHA256_HEX_LEN + 1])
{
	if (!pin_has(e, s))
		return NULL;
	sha256_hex(e->pin[s], hex);
	return hex;
}

/* The boot state block's record of the tries counted there for e (a file's under BIOS, an
 * anysector.cfg entry's under both firmwares), or NULL. */
static const uint8_t *bios_tries(uint8_t *live, const struct cfg_entry *e)
{
	return live && e->tries_left >= 0
	       ? bstate_find(live, BSTATE_TRIES, e->bls ? e->file : e->name) : NULL;
}

/* The copy of the boot state block holding the state (into st, with whether stage2 is its
 * legacy-gap build), or NULL: the tries stage2 counted (BIOS) are there, not in the file
 * names. */
static uint8_t *state_now(struct hostdev *h, struct bstate_disk *st)
{
	const char *why;

	if (bstate_disk_read(&h->dev, st, &why))
		st->stage2_gap = false;
	return st->offset && st->io.live >= 0 ? st->io.copy[st->io.live] : NULL;
}

/* e's boot counter: the file's (UEFI counts by renaming it) and the state block's (BIOS). */
static void print_tries(uint8_t *live, const struct cfg_entry *e)
{
	const uint8_t *r = bios_tries(live, e);

	if (e->tries_left < 0)
		return;
	if (e->bls)
		printf("     tries    %d left, %d done (its file name)%s", (int)e->tries_left,
		       (int)e->tries_done, e->tries_left ? "" : ": failed, sorts last");
	else
		printf("     tries    %d (its tries line)", (int)e->tries_left);
	if (r)
		printf("; %s%u left, %u done (boot state block)%s", e->bls ? "under BIOS " : "",
		       r[2], r[3], r[2] ? "" : ": failed, sorts last");
	printf("\n");
}

/* A line of the listing: the label, then text from the disk as tools/base/text.h shows it. */
static void shown_line(const char *label, const char *value)
{
	fputs(label, stdout);
	text_put(stdout, value);
	fputc('\n', stdout);
}

static void print_human(const struct boot_menu *m, unsigned part, const struct report *r,
			uint8_t *live, bool gap)
{
	const struct cfg *c = &m->cfg;
	int def = cfg_default_index(c);

	printf("boot partition %u: %u entr%s, timeout %u s (%s)%s\n", part, c->nentries,
	       c->nentries == 1 ? "y" : "ies", c->timeout, m->timeout_from,
	       m->cfg_text ? "" : ", no anysector.cfg");
	for (unsigned i = 0; i < c->nentries; i++) {
		const struct cfg_entry *e = &c->entries[i];
		char hex[SHA256_HEX_LEN + 1];
		printf("\n%c %u) ", (int)i == def ? '*' : ' ', i + 1);
		shown_line("", e->name);
		shown_line("     title    ", e->title);
		if (e->version[0])
			shown_line("     version  ", e->version);
		if (e->kind == CFG_KIND_CHAIN && e->partition) {
			printf("     chainload partition %u\n", e->partition);
		} else if (e->kind == CFG_KIND_CHAIN) {
			printf("     chainload hd%u\n", e->bios_disk);
		} else if (e->partition) {
			printf("     efi      ");
			text_put(stdout, e->kernel);
			printf(" on partition %u\n", e->partition);
		} else {
			shown_line(e->kind == CFG_KIND_EFI ? "     efi      " : e->kind == CFG_KIND_UKI
				   ? "     uki      " : "     kernel   ", e->kernel);
		}
		if (pin_text(e, PIN_KERNEL, hex))
			printf("     sha256   %s\n", hex);
		for (unsigned k = 0; k < e->ninitrd; k++) {
			shown_line("     initrd   ", e->initrd[k]);
			if (pin_text(e, PIN_INITRD + k, hex))
				printf("     sha256   %s\n", hex);
		}
		shown_line("     cmdline  ", e->cmdline);
		print_tries(live, e);
		printf("     from     ");
		text_put(stdout, m->src[i].path);
		printf("%s\n", (int)i == def ? " (the default)" : "");
		printf("     shown    %s\n", firmware_text(m, i, gap));
	}
	if (!c->nentries)
		printf("\nno entries: the loaders have nothing to boot\n");
	if (r->n)
		printf("\n");
	for (unsigned i = 0; i < r->n; i++)
		printf("%-7s %s\n", report_level_name(r->items[i].level), r->items[i].msg);
}

static void json_count(struct json *j, const char *key, bool has, long long v)
{
	if (has)
		json_i64(j, key, v);
	else
		json_null(j, key);
}

static void print_json(const struct boot_menu *m, const char *target, unsigned part,
		       const struct report *r, int status, uint8_t *live, bool gap)
{
	const struct cfg *c = &m->cfg;
	int def = cfg_default_index(c);
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "target", target);
	if (part)
		json_u64(&j, "boot_partition", part);
	else
		json_null(&j, "boot_partition");
	json_bool(&j, "config", m->cfg_text != NULL);
	json_bool(&j, "loader_conf", m->has_loader);
	json_bool(&j, "stage2_gap_build", gap);
	json_u64(&j, "timeout", c->timeout);
	json_str(&j, "timeout_from", m->timeout_from ? m->timeout_from : "built-in");
	if (def >= 0 && m->valid)
		json_str(&j, "default", c->entries[def].name);
	else
		json_null(&j, "default");
	json_arr_begin(&j, "entries");
	for (unsigned i = 0; i < c->nentries && part; i++) {
		const struct cfg_entry *e = &c->entries[i];
		const struct menu_source *s = &m->src[i];
		json_obj_begin(&j, NULL);
		json_u64(&j, "index", i + 1);
		json_str(&j, "name", e->name);
		char shown[1024];
		menu_title(e, shown, sizeof shown - 1);
		json_str(&j, "title", e->title);
		json_str(&j, "menu_title", shown);
		json_str(&j, "kind", kind_names[e->kind]);
		json_str(&j, "kernel", e->kernel);
		json_arr_begin(&j, "initrds");
		for (unsigned k = 0; k < e->ninitrd; k++)
			json_str(&j, NULL, e->initrd[k]);
		json_arr_end(&j);
		/* the pins (null: not pinned), initrd_sha256 in the order of initrds */
		char hex[SHA256_HEX_LEN + 1];
		if (pin_text(e, PIN_KERNEL, hex))
			json_str(&j, "kernel_sha256", hex);
		else
			json_null(&j, "kernel_sha256");
		json_arr_begin(&j, "initrd_sha256");
		for (unsigned k = 0; k < e->ninitrd; k++) {
			if (pin_text(e, PIN_INITRD + k, hex))
				json_str(&j, NULL, hex);
			else
				json_null(&j, NULL);
		}
		json_arr_end(&j);
		json_str(&j, "cmdline", e->cmdline);
		json_bool(&j, "default", (int)i == def);
		if (e->kind == CFG_KIND_CHAIN && !e->partition)
			json_u64(&j, "bios_disk", e->bios_disk);
		if (e->partition)
			json_u64(&j, "partition", e->partition);
		else
			json_null(&j, "partition");
		json_arr_begin(&j, "firmware");
		if (shown_on(m, i, CFG_FW_BIOS, gap))
			json_str(&j, NULL, "bios");
		if (shown_on(m, i, CFG_FW_UEFI, gap))
			json_str(&j, NULL, "uefi");
		json_arr_end(&j);
		json_str(&j, "source", source_name(m, i));
		json_str(&j, "file", s->path);
		if (s->bls) {
			json_str(&j, "version", e->version);
			json_str(&j, "machine_id", e->machine_id);
			json_str(&j, "sort_key", e->sort_key);
		}
		/* boot counting: the file's counter or the tries line (null: not counted), the
		 * boot state block's tries for it; bad by the file's counter, an anysector.cfg
		 * entry by the block's */
		const uint8_t *bt = bios_tries(live, e);
		bool counted = e->tries_left >= 0;
		json_count(&j, "tries_left", counted, e->tries_left);
		json_count(&j, "tries_done", counted, e->tries_done);
		json_bool(&j, "bad", counted && (e->bls ? !e->tries_left : bt && !bt[2]));
		json_count(&j, "bios_tries_left", bt, bt ? bt[2] : 0);
		json_count(&j, "bios_tries_done", bt, bt ? bt[3] : 0);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	report_json(r, &j);
	json_i64(&j, "status", status);
	json_obj_end(&j);
	json_finish(&j);
}

/* What the steps reported themselves (into g_report, echoed unless --json) goes into the JSON
 * output's report too. */
static void take_reported(struct report *r, bool json)
{
	for (unsigned i = 0; i < g_report->n && json; i++)
		report_add(r, g_report->items[i].level, g_report->items[i].code,
			   g_report->items[i].msg);
}

int cmd_list(int argc, char **argv)
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
		default: return bad_option("list");
		}
	}
	if (optind + 1 != argc)
		return usage_error("list", "list needs exactly one TARGET");

	struct hostdev h;
	struct disk_info di;
	struct esp_session s;
	struct boot_menu *m = xcalloc(1, sizeof *m);
	struct report r;
	unsigned part = 0;

	memset(&di, 0, sizeof di);
	memset(&s, 0, sizeof s);
	report_init(&r, false);
	g_report->echo = !json;
	rc = open_target(&h, argv[optind], false, &o.topo);
	if (!rc)
		rc = disk_inspect(&h, &di, false, &r);
	if (rc) {
		take_reported(&r, json);
	} else if (di.damaged) {
		report_printf(&r, DIAG_ERROR, "table.damaged", "%s: the partition table is damaged: %s "
			      "(see 'anysector check')", h.path, di.damage);
		rc = EXIT_ERRORS;
	} else if (di.esp < 0) {
		report_printf(&r, DIAG_ERROR, "list.no_esp", "%s has no %s, so no boot menu", h.path,
			      di.label == LABEL_GPT ? "EFI system partition" : "FAT boot partition");
		rc = EXIT_ERRORS;
	} else {
		const struct part_info *bp = &di.parts[di.esp];
		/* a mounted boot partition is read through its filesystem: the kernel's view, newer
		 * than the sectors while its cache is not written back */
		struct usage u;
		usage_scan(&h, &u);
		const struct kdev *k = usage_partition(&u, bp->first * h.topo.lss,
						       bp->sectors * h.topo.lss);
		bool mounted = k && k->mount[0] && !k->mount_subtree;
		if (mounted) {
			/* a step: it says the sentence itself */
			if ((rc = esp_open_mounted(&s, &h, bp->first, bp->sectors, bp->number,
						   k->mount)))
				take_reported(&r, json);
		} else if (esp_view(&s, &h, bp->first, bp->sectors, bp->number, NULL)) {
			report_printf(&r, DIAG_ERROR, "esp.fat", "boot partition %u holds no valid FAT "
				      "filesystem", bp->number);
			rc = EXIT_ERRORS;
		}
		usage_free(&u);
		if (!rc) {
			part = bp->number;
			struct report q;
			report_init(&q, false);
			rc = boot_menu_load(&s, m, &q) || !m->valid ? EXIT_ERRORS : 0;
			/* the table's own notes do not belong to the menu */
			report_free(&r);
			r = q;
		}
	}
	struct bstate_disk *st = xcalloc(1, sizeof *st);
	uint8_t *live = part ? state_now(&h, st) : NULL;
	/* the legacy-gap stage2 boots no unified kernel image: an error when it has nothing left */
	if (part && !rc && st->stage2_gap && boot_menu_gap(&s, m, &r) == GAP_BIOS_NOTHING)
		rc = EXIT_ERRORS;
	if (json)
		print_json(m, argv[optind], part, &r, rc, live, part && st->stage2_gap);
	else if (part)
		print_human(m, part, &r, live, st->stage2_gap);
	else
		for (unsigned i = 0; i < r.n; i++)
			if (r.items[i].level == DIAG_ERROR)
				fprintf(stderr, "anysector: %s\n", r.items[i].msg);
	free(st);
	esp_close(&s);
	boot_menu_free(m);
	free(m);
	report_free(&r);
	disk_info_free(&di);
	hostdev_close(&h);
	return rc;
}
