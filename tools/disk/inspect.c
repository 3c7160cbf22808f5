/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/disk/inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/disk/mbr_size.h"
#include "tools/disk/topology.h"

static const struct {
	const char *guid;
	const char *name;
} gpt_types[] = {
	{ "C12A7328-F81F-11D2-BA4B-00A0C93EC93B", "EFI system" },
	{ "21686148-6449-6E6F-744E-656564454649", "BIOS boot" },
	{ "0FC63DAF-8483-4772-8E79-3D69D8477DE4", "Linux filesystem" },
	{ "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F", "Linux swap" },
	{ "E6D6D379-F507-44C2-A23C-238F2A3DF928", "Linux LVM" },
	{ "A19D880F-05FC-4D3B-A006-743F0F84911E", "Linux RAID" },
	{ "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709", "Linux root (x86-64)" },
	{ "BC13C2FF-59E6-4262-A352-B275FD6F7172", "Linux extended boot" },
	{ "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7", "Microsoft basic data" },
	{ "E3C9E316-0B5C-4DB8-817D-F92DF00215AE", "Microsoft reserved" },
	{ "DE94BBA4-06D1-4D40-A16A-BFD50179D6AC", "Windows recovery" },
};

static const struct {
	uint8_t type;
	const char *name;
} mbr_types[] = {
	{ 0x01, "FAT12" }, { 0x04, "FAT16 <32M" }, { 0x05, "extended" }, { 0x06, "FAT16" },
	{ 0x07, "NTFS/exFAT" }, { 0x0B, "FAT32" }, { 0x0C, "FAT32 (LBA)" },
	{ 0x0E, "FAT16 (LBA)" }, { 0x0F, "extended (LBA)" }, { 0x82, "Linux swap" },
	{ 0x83, "Linux" }, { 0x85, "Linux extended" }, { 0x8E, "Linux LVM" },
	{ 0xEE, "GPT protective" }, { 0xEF, "EFI system" }, { 0xFD, "Linux RAID" },
};

const char *part_type_name(const struct disk_info *di, const struct part_info *p)
{
	if (di->label == LABEL_GPT) {
		char s[GUID_STR_LEN + 1];
		guid_format(&p->type_guid, s);
		for (size_t i = 0; i < ARRAY_SIZE(gpt_types); i++)
			if (!strcmp(s, gpt_types[i].guid))
				return gpt_types[i].name;
		return NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(mbr_types); i++)
		if (mbr_types[i].type == p->mbr_type)
			return mbr_types[i].name;
	return NULL;
}

void disk_info_free(struct disk_info *di)
{
	free(di->gpt);
	free(di->mbrt);
	free(di->dual);
	free(di->parts);
	memset(di, 0, sizeof *di);
}

/* fmt has one %s; the message is cut to fit. A message that already says what fmt would say
 * first ("no valid GPT: no valid GPT: ...") is taken as it is. */
static void damaged(struct disk_info *di, const char *fmt, const char *msg)
{
	char cut[REPORT_MSG_MAX - 100];
	size_t lead = strcspn(fmt, "%");

	snprintf(cut, sizeof cut, "%.1900s", msg);
	if (!di->damaged) {
		if (lead > 2 && !strncmp(cut, fmt, lead - 2))
			snprintf(di->damage, sizeof di->damage, "%s", cut);
		else
			snprintf(di->damage, sizeof di->damage, fmt, cut);
	}
	di->damaged = true;
}

/* Puts the likeliest cause in front of whatever damage was found (or makes it the damage). */
static void damaged_because(struct disk_info *di, const char *why)
{
	char was[sizeof di->damage];

	snprintf(was, sizeof was, "%s", di->damage);
	if (di->damaged)
		snprintf(di->damage, sizeof di->damage, "%.500s (%.400s)", why, was);
	else
		snprintf(di->damage, sizeof di->damage, "%s", why);
	di->damaged = true;
}

/* Passes on only the codes listed in ctx (a NULL-terminated array), keeping their level. */
struct filter {
	struct report rep;
	const char *const *keep;
	struct report *to;
};

static void copy_kept(const struct filter *f)
{
	for (unsigned i = 0; i < f->rep.n; i++)
		for (const char *const *k = f->keep; *k; k++)
			if (!strcmp(f->rep.items[i].code, *k))
				report_add(f->to, f->rep.items[i].level, f->rep.items[i].code,
					   f->rep.items[i].msg);
}

static void read_gpt(struct hostdev *h, struct disk_info *di, bool strict, struct report *r)
{
	struct report q;
	int rc;

	di->gpt = xcalloc(1, sizeof *di->gpt);
	report_init(&q, false);
	rc = gpt_read(&h->dev, di->gpt, &q.diag);
	if (strict) {
		/* Each header on its own, every problem an error; then what only the pair tells. */
		static const char *const keep[] = { "gpt.backup_mismatch", "gpt.using_backup",
						    "gpt.invalid", NULL };
		struct filter f = { .rep = q, .keep = keep, .to = r };
		/* A backup that disagrees is what the disk falls back to once the primary breaks:
		 * install and add refuse such a disk, so check calls it an error too. */
		for (unsigned i = 0; i < q.n; i++)
			if (!strcmp(q.items[i].code, "gpt.backup_mismatch"))
				q.items[i].level = DIAG_ERROR;
		uint64_t last = h->dev.sectors - 1;
		uint64_t backup = di->gpt->primary_valid ? di->gpt->hdr.alternate_lba
				  : di->gpt->used_backup ? di->gpt->hdr.my_lba : last;
		gpt_read_at(&h->dev, 1, NULL, &r->diag);
		if (backup != 1)
			gpt_read_at(&h->dev, backup, NULL, &r->diag);
		copy_kept(&f);
	} else {
		for (unsigned i = 0; i < q.n; i++)
			report_add(r, q.items[i].level, q.items[i].code, q.items[i].msg);
	}
	if (rc) {
		/* Both headers invalid (gpt.invalid says why), or none there at all (gpt.none). */
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		for (unsigned i = 0; i < q.n && !it; i++)
			if (!strcmp(q.items[i].code, "gpt.none"))
				it = &q.items[i];
		if (it && !strcmp(it->code, "gpt.none"))
			damaged(di, "%s, although LBA 0 holds a protective MBR", it->msg);
		else
			damaged(di, "no valid GPT: %s", it ? it->msg : as_strerror(rc));
	} else if (!di->gpt->primary_valid || !di->gpt->backup_valid ||
		   report_has(&q, "gpt.backup_mismatch")) {
		const struct report_item *it = report_first(&q, DIAG_WARN);
		damaged(di, "the GPT is damaged: %s", it ? it->msg : "one header is invalid");
	}
	report_free(&q);
	if (rc)
		return;
	for (unsigned i = 0; i < di->gpt->count; i++) {
		const struct gpt_part *gp = &di->gpt->parts[i];
		struct part_info *p = &di->parts[di->nparts++];
		p->number = gp->number;
		p->first = gp->e.first_lba;
		p->sectors = gp->e.last_lba - gp->e.first_lba + 1;
		p->type_guid = gp->e.type;
		p->unique = gp->e.unique;
		gpt_name_get(&gp->e, p->name);
		if (di->esp < 0 && guid_eq(&gp->e.type, &GUID_ESP))
			di->esp = (int)(di->nparts - 1);
		if (di->bios_boot < 0 && guid_eq(&gp->e.type, &GUID_BIOS_BOOT))
			di->bios_boot = (int)(di->nparts - 1);
	}
}

static void read_mbr(struct hostdev *h, struct disk_info *di, struct report *r)
{
	struct report q;

	di->mbrt = xcalloc(1, sizeof *di->mbrt);
	report_init(&q, false);
	q.forward = r;
	int rc = mbr_read(&h->dev, di->mbrt, &q.diag);
	if (rc || q.diag.errors) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		damaged(di, "the MBR partition table is invalid: %s", it ? it->msg : as_strerror(rc));
	}
	report_free(&q);
	if (rc)
		return;
	unsigned boot = mbr_boot_part(&di->mbrt->mbr);
	for (unsigned i = 0; i < di->mbrt->count; i++) {
		const struct mbr_part *mp = &di->mbrt->parts[i];
		struct part_info *p = &di->parts[di->nparts++];
		p->number = mp->number;
		p->first = mp->first_lba;
		p->sectors = mp->sectors;
		p->mbr_type = mp->type;
		p->active = mp->active;
		p->container = mbr_type_is_extended(mp->type);
		if (mp->number == boot)
			di->esp = (int)(di->nparts - 1);
	}
}

/* "4096", "512 and 4096", "512, 1024 and 4096" for a set of sector sizes (bit = size). */
static const char *sizes_text(unsigned bits, char *buf, size_t cap)
{
	size_t n = 0;
	unsigned left = bits;

	buf[0] = 0;
	for (unsigned sz = 512; sz <= 4096; sz <<= 1) {
		if (!(bits & sz))
			continue;
		left &= ~sz;
		n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%u",
				      n ? (left ? ", " : " and ") : "", sz);
		if (n >= cap)
			break;
	}
	return buf;
}

/* An MBR's LBAs mean nothing without the sector size, which the image cannot tell. When the boot
 * partition holds no FAT boot sector at the sector size in use, but does at another size and
 * declares that size itself, the size in use is wrong: say so before anything is written. */
static void mbr_sector_size_hint(struct hostdev *h, struct disk_info *di, struct report *r)
{
	unsigned number = mbr_boot_part(&di->mbr);
	uint32_t lss = h->topo.lss;

	if (!number)
		return;
	const struct mbr_entry *e = &di->mbr.part[number - 1];
	if (fat_bps_at(h->fd, h->size_bytes, (uint64_t)e->lba_first * lss) == lss)
		return;
	for (uint32_t c = 512; c <= 4096; c <<= 1) {
		uint64_t off = (uint64_t)e->lba_first * c;
		if (c == lss || fat_bps_at(h->fd, h->size_bytes, off) != c)
			continue;
		char why[REPORT_MSG_MAX], fix[96];
		if (h->is_block)
			snprintf(fix, sizeof fix, "the table was written for %u-byte sectors, not this "
				 "device's", (unsigned)c);
		else
			snprintf(fix, sizeof fix, "this disk has %u-byte sectors, give --sector-size %u",
				 (unsigned)c, (unsigned)c);
		snprintf(why, sizeof why,
			 "MBR partition %u starts at LBA %u, which holds no FAT boot sector at %u-byte "
			 "sectors (byte %llu); at %u-byte sectors (byte %llu) a FAT boot sector declares "
			 "%u bytes per sector: %s",
			 number, (unsigned)e->lba_first, (unsigned)lss,
			 (unsigned long long)e->lba_first * lss, (unsigned)c, (unsigned long long)off,
			 (unsigned)c, fix);
		report_add(r, DIAG_ERROR, "label.sector_size", why);
		damaged_because(di, why);
		return;
	}
}

/* A hybrid MBR (entries besides the 0xEE one) is only safe while each of its entries is exactly
 * a GPT partition: otherwise BIOS-side software and the GPT see different partitions, and
 * writing to either could land in the other's data. */
static void check_hybrid(struct hostdev *h, struct disk_info *di, struct report *r)
{
	for (unsigned i = 0; i < 4; i++) {
		const struct mbr_entry *e = &di->mbr.part[i];
		bool match = false;
		if (e->type == MBR_TYPE_EMPTY || e->type == MBR_TYPE_GPT_PROTECTIVE)
			continue;
		for (unsigned k = 0; k < di->nparts && !match; k++)
			match = di->parts[k].first == e->lba_first && di->parts[k].sectors == e->sectors;
		if (match)
			continue;
		char why[REPORT_MSG_MAX];
		uint64_t last = (uint64_t)e->lba_first + e->sectors - (e->sectors ? 1 : 0);
		snprintf(why, sizeof why,
			 "hybrid MBR entry %u (type 0x%02X, LBA %u..%llu%s) is not one of the GPT's "
			 "partitions: the MBR and the GPT describe different partitions",
			 i + 1, e->type, (unsigned)e->lba_first, (unsigned long long)last,
			 last >= h->dev.sectors ? ", past the end of the disk" : "");
		report_add(r, DIAG_ERROR, "pmbr.hybrid_mismatch", why);
		damaged(di, "%s", why);
	}
}

/* A dual GPT (tools/disk/dual.h): its problems are damage the writers refuse, which 'anysector
 * repair' fixes. */
static void inspect_dual(struct hostdev *h, struct disk_info *di, struct report *r)
{
	struct report q;

	report_init(&q, false);
	q.forward = r;
	di->dual = dual_inspect(h, di->lba0, &q);
	if (q.diag.errors) {
		char why[REPORT_MSG_MAX];
		snprintf(why, sizeof why, "the dual GPT is damaged (%.800s); 'anysector repair' "
			 "rebuilds it", report_first(&q, DIAG_ERROR)->msg);
		damaged_because(di, why);
	}
	report_free(&q);
}

static void compute_alignment(const struct hostdev *h, struct disk_info *di)
{
	struct topology pt = h->topo;
	pt.io_min = pt.io_opt = 0;
	di->grain = align_grain(&h->topo, true);
	di->pgrain = align_grain(&pt, false);
	di->mgrain = align_grain(&pt, true);
	di->slot_grain = di->dual && di->pgrain < DUAL_BLOCK ? DUAL_BLOCK : di->pgrain;
	di->first_part_lba = UINT64_MAX;
	for (unsigned i = 0; i < di->nparts; i++) {
		struct part_info *p = &di->parts[i];
		p->phys_aligned = align_lba_ok(&h->topo, p->first, di->pgrain);
		p->mib_aligned = align_lba_ok(&h->topo, p->first, di->mgrain);
		p->grain_aligned = align_lba_ok(&h->topo, p->first, di->grain);
		p->phys_up = align_up(&h->topo, p->first, di->pgrain);
		p->grain_up = align_up(&h->topo, p->first, di->grain);
		if (p->first < di->first_part_lba)
			di->first_part_lba = p->first;
	}
}

int disk_inspect(struct hostdev *h, struct disk_info *di, bool strict, struct report *r)
{
	memset(di, 0, sizeof *di);
	di->esp = di->bios_boot = -1;
	di->parts = xcalloc(GPT_MAX_PARTS > MBR_MAX_PARTS ? GPT_MAX_PARTS : MBR_MAX_PARTS,
			    sizeof *di->parts);
	int rc = bdev_read_bytes(&h->dev, 0, di->lba0, sizeof di->lba0);
	if (rc) {
		report_printf(r, DIAG_ERROR, "io.read", "%s: LBA 0 could not be read: %s", h->path,
			      as_strerror(rc));
		return EXIT_ERRORS;
	}
	unsigned errors_before = r->diag.errors;
	mbr_decode(di->lba0, &di->mbr);
	if (!memcmp(di->lba0 + STAGE1_MAGIC_OFF, STAGE1_MAGIC, 4)) {
		di->has_stage1 = true;
		di->s1_version = le16_load(di->lba0 + STAGE1_VERSION_OFF);
		di->s2_offset = le64_load(di->lba0 + STAGE1_S2_OFFSET_OFF);
		di->s2_length = le32_load(di->lba0 + STAGE1_S2_LENGTH_OFF);
	}

	char why[200];
	if (probe_range(h->fd, 0, h->size_bytes, h->topo.lss, &di->sigs, why, sizeof why)) {
		report_printf(r, DIAG_ERROR, "probe.failed", "%s: %s", h->path, why);
		return EXIT_ERRORS;
	}

	unsigned gpt_sizes = topology_gpt_sizes(h->fd, h->size_bytes);
	bool gpt_here = gpt_sizes & h->topo.lss;
	struct label lb = label_decide(&di->mbr, gpt_here);
	bool protective = lb.kind == LABEL_GPT && !lb.pmbr_missing;
	/* A FAT or NTFS filesystem's boot sector ends in 0x55AA too, but holds no table. */
	if (lb.kind == LABEL_MBR && probe_boot_sector_is_filesystem(&di->sigs, &di->mbr))
		lb.kind = LABEL_NONE;

	if (lb.kind == LABEL_GPT) {
		struct report q;
		char sz[40];
		di->label = LABEL_GPT;
		read_gpt(h, di, strict, r);
		inspect_dual(h, di, r);
		if (di->damaged && (gpt_sizes & ~h->topo.lss) && !di->dual) {
			char why[200];
			snprintf(why, sizeof why,
				 "no valid GPT at %u-byte sectors, but a GPT header is valid at %s-byte "
				 "sectors: %s",
				 (unsigned)h->topo.lss, sizes_text(gpt_sizes & ~h->topo.lss, sz, sizeof sz),
				 h->is_block ? "the GPT was written for another sector size than this "
					       "device's"
					     : "check --sector-size");
			report_add(r, DIAG_ERROR, "label.sector_size", why);
			damaged_because(di, why);
		}
		report_init(&q, false);
		if (mbr_check_protective(&di->mbr, h->dev.sectors, &q.diag) && !protective)
			damaged(di, "%s", "LBA 0 holds no protective MBR in front of the GPT");
		else if (q.diag.errors)
			damaged(di, "the protective MBR in LBA 0 is invalid: %s",
				report_first(&q, DIAG_ERROR)->msg);
		/* On a dual GPT, 0xFFFFFFFF is the size that is right at both sector sizes. */
		for (unsigned i = 0; i < q.n; i++)
			if (!di->dual || strcmp(q.items[i].code, "pmbr.size") ||
			    q.items[i].level != DIAG_WARN)
				report_add(r, q.items[i].level, q.items[i].code, q.items[i].msg);
		report_free(&q);
		if (lb.hybrid && di->gpt && (di->gpt->primary_valid || di->gpt->used_backup))
			check_hybrid(h, di, r);
	} else if (lb.kind == LABEL_MBR) {
		di->label = LABEL_MBR;
		read_mbr(h, di, r);
		mbr_sector_size_hint(h, di, r);
		if (lb.stale_gpt)
			report_printf(r, DIAG_WARN, "label.stale_gpt",
				      "LBA 0 holds an MBR without a protective entry, yet a GPT header is "
				      "also present: the GPT is ignored (remove it or restore the "
				      "protective MBR)");
	} else {
		di->label = LABEL_NONE;
		if (gpt_sizes)
			report_printf(r, DIAG_WARN, "label.sector_size",
				      "no partition table at %u-byte sectors, but a GPT header is valid at "
				      "another sector size (%s%s%s%s): check --sector-size",
				      (unsigned)h->topo.lss, gpt_sizes & 512 ? "512 " : "",
				      gpt_sizes & 1024 ? "1024 " : "", gpt_sizes & 2048 ? "2048 " : "",
				      gpt_sizes & 4096 ? "4096" : "");
	}
	/* check fails (exit 2) on every disk whose tables install and add refuse to write to. */
	if (strict && di->damaged && r->diag.errors == errors_before)
		report_printf(r, DIAG_ERROR, "table.damaged", "%s", di->damage);
	compute_alignment(h, di);
	return 0;
}

bool sig_is_table_we_read(const struct probe_hit *h)
{
	return h->table && (!strcmp(h->type, "dos") || !strcmp(h->type, "gpt") ||
			    !strcmp(h->type, "PMBR"));
}

const char *sig_sentence(const struct hostdev *h, const struct disk_info *di,
			 const struct probe_hit *sig, char *buf, size_t cap)
{
	char what[160];
	probe_hit_text(sig, what, sizeof what);
	if (di->label == LABEL_NONE)
		snprintf(buf, cap, "%s holds %s%s", h->path, what,
			 sig->table ? ", which anysector does not read" : " and no partition table");
	else
		snprintf(buf, cap, "besides its %s, %s holds %s", di->label == LABEL_GPT ? "GPT" : "MBR",
			 h->path, what);
	return buf;
}

void disk_check_alignment(const struct hostdev *h, const struct disk_info *di, struct report *r)
{
	const struct topology *t = &h->topo;
	char g[32];

	for (unsigned i = 0; i < di->nparts; i++) {
		const struct part_info *p = &di->parts[i];
		uint64_t byte = p->first * t->lss;
		if (p->container)
			continue;
		if (!p->phys_aligned) {
			uint32_t aoff = align_effective_offset(t);
			uint64_t into = (byte % t->pss + t->pss - aoff % t->pss) % t->pss;
			char also[64] = "";
			/* Name the grain start only when it differs from the physical one. */
			if (p->grain_up != p->phys_up)
				snprintf(also, sizeof also, " (or LBA %llu for %s alignment)",
					 (unsigned long long)p->grain_up,
					 human_size(di->grain, g, sizeof g));
			else
				snprintf(also, sizeof also, ", which is also %s-aligned",
					 human_size(di->grain, g, sizeof g));
			report_printf(r, DIAG_WARN, "align.partition",
				      "partition %u starts at LBA %llu (byte %llu), %llu bytes into a "
				      "%u-byte physical sector%s: every 4 KiB block in it straddles two "
				      "physical sectors; it should start at LBA %llu%s",
				      p->number, (unsigned long long)p->first, (unsigned long long)byte,
				      (unsigned long long)into, (unsigned)t->pss,
				      aoff ? " (the drive's alignment offset is nonzero)" : "",
				      (unsigned long long)p->phys_up, also);
		} else if (!p->grain_aligned) {
			report_printf(r, DIAG_INFO, "align.partition_grain",
				      "partition %u starts at LBA %llu: physically aligned, but not on a "
				      "%s boundary (LBA %llu would be)",
				      p->number, (unsigned long long)p->first,
				      human_size(di->grain, g, sizeof g), (unsigned long long)p->grain_up);
		}
	}
}
