/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector info / check: what is on the disk, and what is wrong with it. */
#include "tools/cmd/cmd_info.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/base/exit_codes.h"
#include "tools/base/json.h"
#include "tools/base/util.h"
#include "tools/cmd/cli.h"
#include "tools/ops/check_boot.h"
#include "tools/ops/install.h"

static const char *label_name(enum label_kind k)
{
	return k == LABEL_GPT ? "gpt" : k == LABEL_MBR ? "mbr" : "none";
}

static void type_text(const struct disk_info *di, const struct part_info *p, char *out, size_t cap)
{
	if (di->label == LABEL_GPT) {
		char g[GUID_STR_LEN + 1];
		guid_format(&p->type_guid, g);
		snprintf(out, cap, "%s", g);
	} else {
		snprintf(out, cap, "0x%02X", p->mbr_type);
	}
}

/* The 0xEE entry of a protective MBR, or NULL. */
static const struct mbr_entry *pmbr_entry(const struct disk_info *di)
{
	for (int i = 0; i < 4; i++)
		if (di->mbr.part[i].type == MBR_TYPE_GPT_PROTECTIVE)
			return &di->mbr.part[i];
	return NULL;
}

/* The backup header's entry array location (0 when unreadable). */
static uint64_t backup_entries_lba(struct hostdev *h, const struct disk_info *di)
{
	uint64_t lba = di->gpt->primary_valid ? di->gpt->hdr.alternate_lba : di->gpt->hdr.my_lba;
	struct gpt_header bh;
	if (lba >= h->dev.sectors || bdev_read(&h->dev, lba, 1, h->dev.scratch))
		return 0;
	gpt_header_decode(h->dev.scratch, &bh);
	return bh.signature == GPT_SIGNATURE ? bh.entries_lba : 0;
}

/* The signatures that are not the table anysector reads, each type once (a FAT filesystem has
 * three magics, a GPT two headers: one sentence names it). */
static unsigned foreign_sigs(const struct disk_info *di, const struct probe_hit **out, unsigned cap)
{
	unsigned n = 0;
	for (unsigned i = 0; i < di->sigs.n && n < cap; i++) {
		const struct probe_hit *h = &di->sigs.hit[i];
		bool dup = false;
		if (di->label != LABEL_NONE && sig_is_table_we_read(h))
			continue;
		for (unsigned k = 0; k < n && !dup; k++)
			dup = !strcmp(out[k]->type, h->type);
		if (!dup)
			out[n++] = h;
	}
	return n;
}

/* The header of one dual half: the primary's when valid, else the backup's; NULL when neither. */
static const struct gpt_header *dual_header(const struct dual_state *s, int k)
{
	return s->t[k][0].valid ? &s->t[k][0].gpt.hdr : s->t[k][1].valid ? &s->t[k][1].gpt.hdr : NULL;
}

static void json_dual(struct json *j, const struct dual_state *s)
{
	json_obj_begin(j, "dual");
	json_bool(j, "clean", s->clean);
	json_arr_begin(j, "halves");
	for (int k = 0; k < DUAL_HALVES; k++) {
		const struct gpt_header *g = dual_header(s, k);
		json_obj_begin(j, NULL);
		json_u64(j, "sector_size", s->geo.half[k].lss);
		json_bool(j, "primary_valid", s->t[k][0].valid);
		json_bool(j, "backup_valid", s->t[k][1].valid);
		json_bool(j, "remnant", s->remnant[k]);
		if (g) {
			json_u64(j, "first_usable", g->first_usable);
			json_u64(j, "last_usable", g->last_usable);
		}
		if (s->t[k][0].valid)
			json_u64(j, "entries_lba", s->t[k][0].gpt.hdr.entries_lba);
		if (s->t[k][1].valid)
			json_u64(j, "backup_entries_lba", s->t[k][1].gpt.hdr.entries_lba);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void print_dual(const struct dual_state *s)
{
	printf("dual GPT:  for 512- and 4096-byte sectors: %s\n",
	       s->clean ? "both GPTs valid and agreeing" : "damaged (see 'anysector check')");
	for (int k = 0; k < DUAL_HALVES; k++) {
		const struct gpt_header *g = dual_header(s, k);
		printf("           %4u-byte GPT: ", (unsigned)s->geo.half[k].lss);
		if (!g) {
			printf("no valid header%s\n", s->remnant[k] ? " (only entry arrays remain)" : "");
			continue;
		}
		printf("usable LBA %llu..%llu, primary %s, backup %s\n",
		       (unsigned long long)g->first_usable, (unsigned long long)g->last_usable,
		       s->t[k][0].valid ? "valid" : "INVALID", s->t[k][1].valid ? "valid" : "INVALID");
	}
}

static void json_topology(struct json *j, const struct hostdev *h)
{
	const struct topology *t = &h->topo;

	json_obj_begin(j, "topology");
	json_u64(j, "logical_sector_size", t->lss);
	json_u64(j, "physical_sector_size", t->pss);
	json_u64(j, "alignment_offset", t->aoff);
	json_u64(j, "io_min", t->io_min);
	json_u64(j, "io_opt", t->io_opt);
	json_u64(j, "io_opt_used", align_sane_io_opt(t));
	json_u64(j, "sectors", h->dev.sectors);
	json_u64(j, "size_bytes", h->size_bytes);
	json_str(j, "source", h->origin_text);
	json_obj_end(j);
}

static void json_gpt(struct json *j, struct hostdev *h, const struct disk_info *di)
{
	const struct gpt_header *g = &di->gpt->hdr;
	char s[GUID_STR_LEN + 1];

	json_obj_begin(j, "gpt");
	guid_format(&g->disk_guid, s);
	json_str(j, "disk_guid", s);
	json_bool(j, "primary_valid", di->gpt->primary_valid);
	json_bool(j, "backup_valid", di->gpt->backup_valid);
	json_bool(j, "used_backup", di->gpt->used_backup);
	json_u64(j, "header_lba", g->my_lba);
	json_u64(j, "alternate_lba", g->alternate_lba);
	json_u64(j, "first_usable", g->first_usable);
	json_u64(j, "last_usable", g->last_usable);
	json_u64(j, "entries_lba", g->entries_lba);
	json_u64(j, "num_entries", g->num_entries);
	json_u64(j, "entry_size", g->entry_size);
	json_u64(j, "backup_entries_lba", backup_entries_lba(h, di));
	json_obj_end(j);
}

static void json_mbr(struct json *j, const struct disk_info *di)
{
	const struct mbr_entry *e = pmbr_entry(di);
	char buf[64];

	json_obj_begin(j, "mbr");
	snprintf(buf, sizeof buf, "0x%08X", (unsigned)di->mbr.disk_sig);
	json_str(j, "disk_signature", buf);
	json_bool(j, "protective", e != NULL);
	if (e) {
		json_u64(j, "protective_start", e->lba_first);
		json_u64(j, "protective_sectors", e->sectors);
	}
	json_obj_end(j);
}

/* Everything libblkid finds on the whole disk. */
static void json_signatures(struct json *j, const struct disk_info *di)
{
	json_arr_begin(j, "signatures");
	for (unsigned i = 0; i < di->sigs.n; i++) {
		const struct probe_hit *s = &di->sigs.hit[i];
		json_obj_begin(j, NULL);
		json_str(j, "type", s->type);
		json_str(j, "usage", s->table ? "partition table" : s->usage);
		json_u64(j, "offset", s->offset);
		json_u64(j, "length", s->len);
		json_bool(j, "bad_checksum", s->bad_csum);
		json_bool(j, "read_by_anysector", di->label != LABEL_NONE && sig_is_table_we_read(s));
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_partition(struct json *j, const struct hostdev *h, const struct disk_info *di,
			   unsigned i)
{
	const struct part_info *p = &di->parts[i];
	const char *tn = part_type_name(di, p);
	char buf[64];

	json_obj_begin(j, NULL);
	json_u64(j, "number", p->number);
	json_u64(j, "start", p->first);
	json_u64(j, "end", p->first + p->sectors - 1);
	json_u64(j, "sectors", p->sectors);
	json_u64(j, "size_bytes", p->sectors * h->topo.lss);
	type_text(di, p, buf, sizeof buf);
	json_str(j, "type", buf);
	if (tn)
		json_str(j, "type_name", tn);
	else
		json_null(j, "type_name");
	if (di->label == LABEL_GPT) {
		char s[GUID_STR_LEN + 1];
		guid_format(&p->unique, s);
		json_str(j, "uuid", s);
		json_str(j, "name", p->name);
	} else {
		json_bool(j, "active", p->active);
		json_bool(j, "extended", p->container);
	}
	json_bool(j, "boot_partition", (int)i == di->esp);
	json_bool(j, "physically_aligned", p->phys_aligned);
	json_bool(j, "mib_aligned", p->mib_aligned);
	json_bool(j, "grain_aligned", p->grain_aligned);
	json_u64(j, "physically_aligned_start", p->phys_up);
	json_u64(j, "grain_aligned_start", p->grain_up);
	json_obj_end(j);
}

static void json_boot(struct json *j, const struct disk_info *di)
{
	json_obj_begin(j, "boot");
	json_bool(j, "stage1", di->has_stage1);
	if (di->has_stage1) {
		json_u64(j, "stage1_version", di->s1_version);
		json_u64(j, "stage2_offset", di->s2_offset);
		json_u64(j, "stage2_length", di->s2_length);
	}
	json_obj_end(j);
}

static void print_json(struct hostdev *h, struct disk_info *di, const struct report *r, int status)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "target", h->path);
	json_str(&j, "kind", h->is_block ? "block" : "file");
	json_topology(&j, h);
	json_u64(&j, "grain_bytes", di->grain);
	json_u64(&j, "physical_grain_bytes", di->pgrain);
	json_u64(&j, "first_aligned_lba", align_up(&h->topo, 0, di->grain));
	json_str(&j, "label", label_name(di->label));
	if (di->damaged)
		json_str(&j, "damage", di->damage);   /* why install and add refuse this disk */
	else
		json_null(&j, "damage");
	if (di->label == LABEL_GPT && di->gpt)
		json_gpt(&j, h, di);
	if (di->dual)
		json_dual(&j, di->dual);
	else
		json_null(&j, "dual");
	if (di->mbr.boot_signature)
		json_mbr(&j, di);
	json_signatures(&j, di);
	json_arr_begin(&j, "partitions");
	for (unsigned i = 0; i < di->nparts; i++)
		json_partition(&j, h, di, i);
	json_arr_end(&j);
	json_boot(&j, di);
	report_json(r, &j);
	json_u64(&j, "errors", r->diag.errors);
	json_u64(&j, "warnings", r->diag.warnings);
	json_i64(&j, "status", status);
	json_obj_end(&j);
	json_finish(&j);
}

static void print_text(struct hostdev *h, struct disk_info *di)
{
	const struct topology *t = &h->topo;
	char a[32], b[32];

	printf("target:    %s (%s, %s)\n", h->path, h->is_block ? "block device" : "image file",
	       human_size(h->size_bytes, a, sizeof a));
	printf("topology:  logical %u, physical %u, alignment offset %u, io_min %u, io_opt %u%s\n",
	       (unsigned)t->lss, (unsigned)t->pss, (unsigned)t->aoff, (unsigned)t->io_min,
	       (unsigned)t->io_opt, t->io_opt && !align_sane_io_opt(t) ? " (ignored)" : "");
	printf("           from %s; %llu sectors\n", h->origin_text,
	       (unsigned long long)h->dev.sectors);
	uint64_t gs = di->grain / t->lss, ps = di->pgrain / t->lss;
	printf("alignment: grain %s (LBA = %llu mod %llu), physical sector: LBA = %llu mod %llu\n",
	       human_size(di->grain, a, sizeof a),
	       (unsigned long long)(align_up(t, 0, di->grain) % (gs ? gs : 1)), (unsigned long long)gs,
	       (unsigned long long)(align_up(t, 0, di->pgrain) % (ps ? ps : 1)),
	       (unsigned long long)ps);
	if (di->label == LABEL_GPT && di->gpt && !di->gpt->primary_valid && !di->gpt->used_backup) {
		printf("label:     gpt (a protective MBR), but neither GPT header is valid\n");
	} else if (di->label == LABEL_GPT && di->gpt) {
		const struct gpt_header *g = &di->gpt->hdr;
		char s[GUID_STR_LEN + 1];
		guid_format(&g->disk_guid, s);
		printf("label:     gpt, disk GUID %s\n", s);
		printf("           usable LBA %llu..%llu, %u entries of %u bytes at LBA %llu, %s "
		       "header at LBA %llu%s\n",
		       (unsigned long long)g->first_usable, (unsigned long long)g->last_usable,
		       (unsigned)g->num_entries, (unsigned)g->entry_size,
		       (unsigned long long)g->entries_lba,
		       di->gpt->used_backup ? "read from the backup" : "backup",
		       (unsigned long long)(di->gpt->used_backup ? g->my_lba : g->alternate_lba),
		       di->gpt->used_backup ? " (the primary is invalid)" : "");
	} else if (di->label == LABEL_MBR) {
		printf("label:     mbr, disk signature 0x%08X\n", (unsigned)di->mbr.disk_sig);
	} else {
		printf("label:     none\n");
	}
	const struct probe_hit *fs[PROBE_MAX_HITS];
	unsigned nfs = foreign_sigs(di, fs, PROBE_MAX_HITS);
	for (unsigned i = 0; i < nfs; i++) {
		char line[600];
		printf("           %s\n", sig_sentence(h, di, fs[i], line, sizeof line));
	}
	if (di->nparts) {
		printf("\n  #  %-12s %-12s %-12s %10s  phys  1MiB  grain  type\n", "start", "end",
		       "sectors", "size");
		for (unsigned i = 0; i < di->nparts; i++) {
			const struct part_info *p = &di->parts[i];
			const char *tn = part_type_name(di, p);
			char ty[64];
			type_text(di, p, ty, sizeof ty);
			printf("%3u  %-12llu %-12llu %-12llu %10s  %-4s  %-4s  %-5s  %s%s%s\n", p->number,
			       (unsigned long long)p->first,
			       (unsigned long long)(p->first + p->sectors - 1),
			       (unsigned long long)p->sectors,
			       human_size(p->sectors * t->lss, b, sizeof b),
			       p->container ? "-" : p->phys_aligned ? "yes" : "NO",
			       p->container ? "-" : p->mib_aligned ? "yes" : "no",
			       p->container ? "-" : p->grain_aligned ? "yes" : "no", tn ? tn : ty,
			       p->active ? " (active)" : "", (int)i == di->esp ? " [boot]" : "");
			/* what a root=PARTUUID= or a dd seek= needs */
			if (di->label == LABEL_GPT) {
				char gs[GUID_STR_LEN + 1];
				guid_format(&p->unique, gs);
				printf("     at byte %llu, unique GUID %s\n",
				       (unsigned long long)(p->first * t->lss), gs);
			} else {
				printf("     at byte %llu\n", (unsigned long long)(p->first * t->lss));
			}
		}
	}
	if (di->dual)
		print_dual(di->dual);
	if (di->damaged)
		printf("damaged:   %s\n", di->damage);
	if (di->has_stage1)
		printf("\nboot code: anysector stage1 v%u, stage2 %u bytes at byte %llu\n",
		       (unsigned)di->s1_version, (unsigned)di->s2_length,
		       (unsigned long long)di->s2_offset);
}

static void print_problems(const struct report *r)
{
	if (!r->n)
		return;
	printf("\n");
	for (unsigned i = 0; i < r->n; i++)
		printf("%-7s %-24s %s\n", report_level_name(r->items[i].level), r->items[i].code,
		       r->items[i].msg);
}

/* --json when the target could not be opened: what was said about it, and the exit code. */
static void print_json_unopened(const char *target, int rc)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "target", target);
	report_json(g_report, &j);
	json_i64(&j, "status", rc);
	json_obj_end(&j);
	json_finish(&j);
}

/* A table we cannot read is an error; something beside our table is a warning, since blkid,
 * udev and mount may take the disk for it. */
static void check_signatures(struct hostdev *h, struct disk_info *di, struct report *r)
{
	const struct probe_hit *fs[PROBE_MAX_HITS];
	unsigned nfs = foreign_sigs(di, fs, PROBE_MAX_HITS);
	char line[600];

	if (di->label == LABEL_NONE && !nfs)
		report_printf(r, DIAG_ERROR, "label.none", "%s has no partition table", h->path);
	for (unsigned i = 0; i < nfs; i++) {
		if (di->label == LABEL_NONE)
			report_add(r, DIAG_ERROR, "label.none", sig_sentence(h, di, fs[i], line,
									   sizeof line));
		else
			report_printf(r, DIAG_WARN, "label.foreign_signature",
				      "%s: programs that ask libblkid may take the disk for it (wipefs "
				      "lists every signature)",
				      sig_sentence(h, di, fs[i], line, sizeof line));
	}
}

/* After the text: check's problems and its count; info only the facts about the boot code it
 * found (problems are check's business) and how many problems check would show. */
static void print_report(const struct report *r, bool check)
{
	if (check) {
		print_problems(r);
		printf("\ncheck: %u error%s, %u warning%s\n", r->diag.errors,
		       r->diag.errors == 1 ? "" : "s", r->diag.warnings,
		       r->diag.warnings == 1 ? "" : "s");
		return;
	}
	for (unsigned i = 0; i < r->n; i++)
		if (!strncmp(r->items[i].code, "boot.", 5) && r->items[i].level == DIAG_INFO)
			printf("           %s\n", r->items[i].msg);
	if (r->diag.errors || r->diag.warnings)
		printf("\n%u error%s, %u warning%s: see 'anysector check'\n", r->diag.errors,
		       r->diag.errors == 1 ? "" : "s", r->diag.warnings,
		       r->diag.warnings == 1 ? "" : "s");
}

static int info_or_check(int argc, char **argv, bool check)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	const char *cmd = check ? "check" : "info";
	struct common_opts o = { 0 };
	bool json = false;
	int c, rc;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &o)) != -1) {
		switch (c) {
		case OPT_JSON: json = true; break;
		case OPT_HELP:
			printf("usage: anysector %s [--json] [topology flags] TARGET\n\n%s\n\n"
			       "options:\n  --json               machine-readable output\n" TOPO_HELP LOCK_HELP,
			       cmd,
			       check ? "Validates TARGET: MBR/GPT rules, CRCs, the backup GPT, overlaps, "
				       "entries past the disk\nor past 2^32-1, the protective MBR, "
				       "partition alignment, and anysector's boot code\n(stage1, stage2, "
				       "BOOTX64.EFI, anysector.cfg). Exit 0 clean, 1 warnings, 2 errors."
				     : "Shows TARGET's topology, label and partitions, and whether each "
				       "partition start is\nphysically aligned and aligned to the full "
				       "grain (1 MiB and io_min/io_opt).");
			return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option(cmd);
		}
	}
	if (optind + 1 != argc)
		return usage_error(cmd, "%s needs exactly one TARGET", cmd);

	struct hostdev h;
	struct disk_info di;
	struct report r;
	report_init(&r, false);
	/* JSON output carries the messages itself; otherwise setup failures go to stderr. */
	g_report->echo = !json;
	if ((rc = open_target(&h, argv[optind], false, &o.topo))) {
		if (json)
			print_json_unopened(argv[optind], rc);
		hostdev_close(&h);
		return rc;
	}
	/* Notes made while opening (topology overrides, ignored tails) belong to the report. */
	for (unsigned i = 0; i < g_report->n; i++)
		report_add(&r, g_report->items[i].level, g_report->items[i].code, g_report->items[i].msg);
	align_topology_check(&h.topo, &r.diag);
	/* info finds what check finds, with the same severities: only the exit code and what
	 * the text shows differ */
	if ((rc = disk_inspect(&h, &di, true, &r))) {
		hostdev_close(&h);
		report_free(&r);
		return rc;
	}
	check_signatures(&h, &di, &r);
	disk_check_alignment(&h, &di, &r);
	check_boot(&h, &di, &r);
	install_preview(&h, &di, &r);

	int status;
	if (check)
		status = r.diag.errors ? EXIT_ERRORS : r.diag.warnings ? EXIT_WARNINGS : EXIT_OK;
	else
		status = EXIT_OK;
	if (json) {
		print_json(&h, &di, &r, status);
	} else {
		print_text(&h, &di);
		print_report(&r, check);
	}
	disk_info_free(&di);
	hostdev_close(&h);
	report_free(&r);
	return status;
}

int cmd_info(int argc, char **argv)
{
	return info_or_check(argc, argv, false);
}

int cmd_check(int argc, char **argv)
{
	return info_or_check(argc, argv, true);
}
