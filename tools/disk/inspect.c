/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/disk/inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/config.h"
#include "common/errors.h"
#include "common/fat.h"
#include "common/le.h"
#include "common/pin.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/boot/efisig.h"
#include "tools/dev/hostdev.h"
#include "tools/disk/topology.h"
#include "tools/esp/bootmenu.h"
#include "tools/esp/esp_chains.h"
#include "tools/esp/espfs.h"
#include "tools/esp/hashfile.h"

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

int part_slice(struct hostdev *h, const struct part_info *p, struct blockdev *out)
{
	return bdev_slice(&h->dev, p->first, p->sectors, out);
}

/* part_file_check's work, leaving the FAT mounted over *part (which fs points into) and the file
 * open in *f for a caller that reads it. */
static int part_file_open(struct hostdev *h, const struct disk_info *di, unsigned number,
			  const char *path, char *why, size_t cap, struct blockdev *part,
			  struct fat_fs *fs, struct fat_file *f)
{
	const struct part_info *p = NULL;
	int err;

	for (unsigned i = 0; i < di->nparts && !p; i++)
		if (di->parts[i].number == number && !di->parts[i].container)
			p = &di->parts[i];
	if (!p) {
		snprintf(why, cap, "%s has no partition %u", h->path, number);
		return AS_ENOENT;
	}
	if ((err = part_slice(h, p, part)) || (err = fat_mount(part, fs, NULL))) {
		snprintf(why, cap, "partition %u of %s holds no FAT filesystem anysector can read "
			 "(%s)", number, h->path, as_strerror(err));
		return AS_ECORRUPT;
	}
	if ((err = fat_open(fs, path, f, NULL)) || f->is_dir) {
		snprintf(why, cap, "partition %u of %s has no file %s%s", number, h->path, path,
			 err ? "" : " (it is a directory)");
		return AS_ENOENT;
	}
	return 0;
}

int part_file_check(struct hostdev *h, const struct disk_info *di, unsigned number,
		    const char *path, char *why, size_t cap)
{
	struct blockdev part;
	struct fat_file f;
	struct fat_fs *fs = xcalloc(1, sizeof *fs);
	int err = part_file_open(h, di, number, path, why, cap, &part, fs, &f);
	free(fs);
	return err;
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

	snprintf(cut, sizeof cut, "%.900s", msg);
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

/* The bytes per sector a FAT boot sector at byte off declares; 0 when no boot sector is there. */
static unsigned fat_bps_at(struct hostdev *h, uint64_t off)
{
	uint8_t b[MBR_RECORD_SIZE];

	if (off > h->size_bytes || h->size_bytes - off < sizeof b || pread_full(h->fd, b, sizeof b, off))
		return 0;
	if ((b[0] != 0xEB && b[0] != 0xE9) || b[510] != 0x55 || b[511] != 0xAA)
		return 0;
	return le16_load(b + 11);
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
	if (fat_bps_at(h, (uint64_t)e->lba_first * lss) == lss)
		return;
	for (uint32_t c = 512; c <= 4096; c <<= 1) {
		uint64_t off = (uint64_t)e->lba_first * c;
		if (c == lss || fat_bps_at(h, off) != c)
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

/* --- boot code --- */

static const struct part_info *part_by_number(const struct disk_info *di, unsigned number)
{
	for (unsigned i = 0; i < di->nparts; i++)
		if (di->parts[i].number == number)
			return &di->parts[i];
	return NULL;
}

static void check_stage2(struct hostdev *h, struct disk_info *di, struct report *r)
{
	uint32_t lss = h->topo.lss;
	uint64_t off = di->s2_offset, len = di->s2_length;
	uint64_t disk = h->dev.sectors * lss;

	if (off % lss || off < lss) {
		report_printf(r, DIAG_ERROR, "boot.stage2_offset",
			      "stage1 points at stage2 at byte %llu, which is not a whole %u-byte "
			      "sector after LBA 0",
			      (unsigned long long)off, (unsigned)lss);
		return;
	}
	if (di->dual && off % DUAL_BLOCK)
		report_printf(r, DIAG_ERROR, "boot.stage2_offset",
			      "stage1 points at stage2 at byte %llu, not a multiple of %u: on this "
			      "dual-GPT disk, stage1 at %u-byte sectors cannot load it",
			      (unsigned long long)off, DUAL_BLOCK, DUAL_LARGE_LSS);
	if (len < STAGE2_HDR_SIZE || len > STAGE2_MAX_SIZE || off > disk || len > disk - off) {
		report_printf(r, DIAG_ERROR, "boot.stage2_length",
			      "stage1 gives stage2 a length of %llu bytes at byte %llu: outside "
			      "%u..%u bytes or past the end of the disk",
			      (unsigned long long)len, (unsigned long long)off, STAGE2_HDR_SIZE,
			      (unsigned)STAGE2_MAX_SIZE);
		return;
	}
	/* Where it lies: inside the BIOS boot partition (GPT) or the gap (MBR), never over data. */
	uint64_t first = off / lss, last = (off + len - 1) / lss;
	for (unsigned i = 0; i < di->nparts; i++) {
		const struct part_info *p = &di->parts[i];
		if (p->container || (int)i == di->bios_boot)
			continue;
		if (first <= p->first + p->sectors - 1 && p->first <= last)
			report_printf(r, DIAG_ERROR, "boot.stage2_overlap",
				      "stage2 (LBA %llu..%llu) overlaps partition %u (LBA %llu..%llu)",
				      (unsigned long long)first, (unsigned long long)last, p->number,
				      (unsigned long long)p->first,
				      (unsigned long long)(p->first + p->sectors - 1));
	}
	uint8_t *img = xmalloc((size_t)len);
	int rc = bdev_read_bytes(&h->dev, off, img, (size_t)len);
	if (rc) {
		report_printf(r, DIAG_ERROR, "io.read", "stage2 at byte %llu could not be read: %s",
			      (unsigned long long)off, as_strerror(rc));
		free(img);
		return;
	}
	if (memcmp(img + STAGE2_MAGIC_OFF, STAGE2_MAGIC, 8)) {
		report_printf(r, DIAG_ERROR, "boot.stage2_missing",
			      "stage1 points at stage2 at byte %llu, but no stage2 header is there",
			      (unsigned long long)off);
	} else if (le32_load(img + STAGE2_LENGTH_OFF) != len) {
		report_printf(r, DIAG_ERROR, "boot.stage2_length",
			      "stage2 at byte %llu says it is %u bytes long; stage1 loads %llu",
			      (unsigned long long)off, (unsigned)le32_load(img + STAGE2_LENGTH_OFF),
			      (unsigned long long)len);
	} else if (!stage2_image_valid(img, (uint32_t)len)) {
		report_printf(r, DIAG_ERROR, "boot.stage2_crc",
			      "stage2 at byte %llu is damaged: its CRC32 is 0x%08X but the image gives "
			      "0x%08X (a torn install or a stray write)",
			      (unsigned long long)off, (unsigned)le32_load(img + STAGE2_CRC_OFF),
			      (unsigned)stage2_image_crc(img, (uint32_t)len));
	} else {
		struct stage2_identity id;
		char gs[GUID_STR_LEN + 1];
		stage2_identity_get(img, &id);
		if (id.kind == STAGE2_KIND_GPT) {
			const struct part_info *bp = NULL;
			for (unsigned i = 0; i < di->nparts && di->label == LABEL_GPT; i++)
				if (guid_eq(&di->parts[i].unique, &id.part_guid))
					bp = &di->parts[i];
			guid_format(&id.part_guid, gs);
			if (!bp)
				report_printf(r, DIAG_ERROR, "boot.identity",
					      "stage2 boots from the partition with GUID %s, which is not "
					      "on this disk",
					      gs);
			else
				report_printf(r, DIAG_INFO, "boot.stage2",
					      "stage2 intact: %llu bytes at byte %llu, boot partition %u "
					      "(GUID %s), config %s",
					      (unsigned long long)len, (unsigned long long)off, bp->number, gs,
					      id.config_path);
		} else if (id.kind == STAGE2_KIND_MBR) {
			const struct part_info *bp = part_by_number(di, id.mbr_part);
			if (di->label != LABEL_MBR || id.mbr_disk_sig != di->mbr.disk_sig || !bp)
				report_printf(r, DIAG_ERROR, "boot.identity",
					      "stage2 boots from partition %u of the disk with signature "
					      "0x%08X, which is not this disk (signature 0x%08X) or "
					      "has no such partition",
					      (unsigned)id.mbr_part, (unsigned)id.mbr_disk_sig,
					      (unsigned)di->mbr.disk_sig);
			else
				report_printf(r, DIAG_INFO, "boot.stage2",
					      "stage2 intact: %llu bytes at byte %llu, boot partition %u "
					      "(disk signature 0x%08X), config %s",
					      (unsigned long long)len, (unsigned long long)off,
					      (unsigned)id.mbr_part, (unsigned)id.mbr_disk_sig, id.config_path);
		} else {
			report_printf(r, DIAG_ERROR, "boot.identity",
				      "stage2 at byte %llu does not name its boot partition (the "
				      "installer never patched it)",
				      (unsigned long long)off);
		}
	}
	free(img);
}

struct fat_ctx {
	struct blockdev part;
	struct fat_fs fs;
};

static bool fat_has(struct fat_ctx *c, const char *path)
{
	struct fat_file f;
	return !fat_open(&c->fs, path, &f, NULL) && !f.is_dir;
}

/* EFI programs larger than this are not boot loaders; check does not read them whole. */
#define EFI_FILE_MAX_BYTES (64u << 20)

/* Reads and describes one EFI program of the boot partition (efisig.h) into *b. Returns 0, or
 * an AS_* code when it is missing, too large or unreadable. */
static int inspect_efi_file(struct fat_ctx *c, const char *path, struct efi_binary *b)
{
	struct fat_file f;
	int rc;

	if ((rc = fat_open(&c->fs, path, &f, NULL)))
		return rc;
	if (f.is_dir)
		return AS_EISDIR;
	if (f.size > EFI_FILE_MAX_BYTES)
		return AS_ETOOBIG;
	uint8_t *buf = xmalloc(f.size ? f.size : 1);
	if (!(rc = fat_read(&c->fs, &f, 0, buf, f.size, NULL)))
		efi_binary_inspect(buf, f.size, b);
	free(buf);
	return rc;
}

/* What \EFI\BOOT\BOOTX64.EFI is and who signed it; with shim there, what shim starts. */
static void check_efi_files(struct fat_ctx *c, unsigned part, struct report *r)
{
	static const char *const second = "/EFI/BOOT/" SHIM_SECOND_STAGE;
	struct efi_binary b, l;
	char text[1200];
	int rc;

	if ((rc = inspect_efi_file(c, "/EFI/BOOT/BOOTX64.EFI", &b))) {
		report_printf(r, DIAG_WARN, "boot.efi_read",
			      "partition %u: \\EFI\\BOOT\\BOOTX64.EFI cannot be read: %s", part,
			      as_strerror(rc));
		return;
	}
	report_printf(r, DIAG_INFO, "boot.efi", "partition %u: \\EFI\\BOOT\\BOOTX64.EFI present: %s", part,
		      efi_binary_text(&b, text, sizeof text));
	if (strcmp(b.component, "shim"))
		return;
	if ((rc = inspect_efi_file(c, second, &l))) {
		report_printf(r, DIAG_WARN, "boot.shim_target",
			      "partition %u: shim starts \\EFI\\BOOT\\" SHIM_SECOND_STAGE
			      ", which %s", part, rc == AS_ENOENT ? "is missing" : as_strerror(rc));
		return;
	}
	report_printf(r, DIAG_INFO, "boot.shim_target",
		      "partition %u: shim starts \\EFI\\BOOT\\" SHIM_SECOND_STAGE ", %s", part,
		      efi_binary_text(&l, text, sizeof text));
	if (!l.nsigs)
		report_printf(r, DIAG_WARN, "boot.shim_unsigned",
			      "partition %u: \\EFI\\BOOT\\" SHIM_SECOND_STAGE " is not signed: with "
			      "Secure Boot on, shim starts it only when its hash is enrolled as a MOK",
			      part);
	else if (!l.component[0])
		report_printf(r, DIAG_WARN, "boot.shim_sbat",
			      "partition %u: \\EFI\\BOOT\\" SHIM_SECOND_STAGE " has no .sbat "
			      "section: shim refuses it with Secure Boot on", part);
	if (fat_has(c, "/EFI/BOOT/mmx64.efi"))
		report_printf(r, DIAG_INFO, "boot.mok_manager",
			      "partition %u: \\EFI\\BOOT\\mmx64.efi (MokManager) present", part);
}

/* The pinned files of e (common/pin.h) hashed as they are on the FAT: a file that differs is the
 * loaders' own sentence, an error (the loaders would not boot it). */
static void check_pins(struct fat_ctx *c, const struct cfg_entry *e, struct report *r)
{
	uint8_t got[SHA256_BYTES];
	struct fat_file f;

	for (unsigned s = 0; s <= e->ninitrd; s++) {
		/* a missing file is said above; efi with partition N: check_part_file */
		if (!pin_has(e, s) || (s == PIN_KERNEL && e->partition) ||
		    fat_open(&c->fs, pin_path(e, s), &f, NULL) || f.is_dir)
			continue;
		if (!fat_file_sha256(&c->fs, &f, got, &r->diag))
			pin_compare(e, s, got, &r->diag);
	}
}

/* An efi entry's application on partition N of the same disk (part_file_check), and its pin
 * hashed there as BOOTX64.EFI does: a mismatch is the loaders' sentence. Returns 0, or an AS_*
 * code with why set when the file is not there. */
static int check_part_file(struct hostdev *h, const struct disk_info *di,
			   const struct cfg_entry *e, struct report *r, char *why, size_t cap)
{
	uint8_t got[SHA256_BYTES];
	struct blockdev part;
	struct fat_file f;
	struct fat_fs *fs = xcalloc(1, sizeof *fs);
	int err = part_file_open(h, di, e->partition, e->kernel, why, cap, &part, fs, &f);

	if (!err && pin_has(e, PIN_KERNEL) && !fat_file_sha256(fs, &f, got, &r->diag))
		pin_compare(e, PIN_KERNEL, got, &r->diag);
	free(fs);
	return err;
}

/* The boot menu as the loaders build it (anysector.cfg, then /loader/entries): every problem
 * they would show, and the files its entries name. */
static void check_config(struct hostdev *h, const struct disk_info *di,
			 const struct part_info *bp, struct fat_ctx *c, bool ours, struct report *r)
{
	struct esp_session s;
	struct boot_menu *m = xcalloc(1, sizeof *m);
	struct fat_file f;

	if (esp_view(&s, h, bp->first, bp->sectors, bp->number, &c->fs)) {
		free(m);
		return;
	}
	bool has_cfg = !fat_open(&c->fs, "/" CFG_FILE_NAME, &f, NULL);
	bool has_bls = !fat_open(&c->fs, BLS_ENTRIES_DIR, &f, NULL) && f.is_dir;
	if (!has_cfg && !has_bls) {
		report_printf(r, ours ? DIAG_WARN : DIAG_INFO, "boot.no_config",
			      "the boot partition has no %s and no %s: the boot menu will be empty",
			      CFG_FILE_NAME, BLS_ENTRIES_DIR);
	} else if (!boot_menu_load(&s, m, r) && m->valid) {
		unsigned nbls = 0;
		for (unsigned i = 0; i < m->cfg.nentries; i++) {
			const struct cfg_entry *e = &m->cfg.entries[i];
			char why[REPORT_MSG_MAX];
			nbls += m->src[i].bls;
			/* chainload names no file; efi with partition N names one elsewhere */
			if (e->kind == CFG_KIND_EFI && e->partition &&
			    check_part_file(h, di, e, r, why, sizeof why))
				report_printf(r, DIAG_ERROR, "boot.config_file",
					      "%s entry '%s': EFI application %s: %s",
					      m->src[i].path + 1, e->name, e->kernel, why);
			if (e->kind != CFG_KIND_CHAIN && !e->partition && !fat_has(c, e->kernel))
				report_printf(r, DIAG_ERROR, "boot.config_file",
					      "%s entry '%s': %s %s is not on the boot partition",
					      m->src[i].path + 1, e->name,
					      e->kind == CFG_KIND_EFI ? "EFI application" : "kernel",
					      e->kernel);
			for (unsigned k = 0; k < e->ninitrd; k++)
				if (!fat_has(c, e->initrd[k]))
					report_printf(r, DIAG_ERROR, "boot.config_file",
						      "%s entry '%s': initrd %s is not on the boot "
						      "partition",
						      m->src[i].path + 1, e->name, e->initrd[k]);
			if (e->kind != CFG_KIND_CHAIN)
				check_pins(c, e, r);
		}
		int def = cfg_default_index(&m->cfg);
		report_printf(r, DIAG_INFO, "boot.config",
			      "boot menu: %u entr%s, default '%s', timeout %u s (%s); %u from %s",
			      m->cfg.nentries, m->cfg.nentries == 1 ? "y" : "ies",
			      def >= 0 ? m->cfg.entries[def].name : "", m->cfg.timeout,
			      m->timeout_from, nbls, BLS_ENTRIES_DIR);
	}
	boot_menu_free(m);
	free(m);
	esp_close(&s);
}

void disk_check_boot(struct hostdev *h, struct disk_info *di, struct report *r)
{
	if (di->has_stage1) {
		report_printf(r, DIAG_INFO, "boot.stage1",
			      "LBA 0 holds anysector boot code version %u (stage2: %u bytes at byte "
			      "%llu)",
			      (unsigned)di->s1_version, (unsigned)di->s2_length,
			      (unsigned long long)di->s2_offset);
		check_stage2(h, di, r);
	} else if (!all_zero(di->lba0, MBR_BOOTCODE_SIZE)) {
		/* a label or superblock there is no boot code at all */
		const struct probe_hit *in0 = NULL;
		for (unsigned i = 0; i < di->sigs.n && !in0 && di->label == LABEL_NONE; i++)
			if (di->sigs.hit[i].offset < h->topo.lss)
				in0 = &di->sigs.hit[i];
		char name[96];
		if (in0)
			report_printf(r, DIAG_INFO, "boot.none", "LBA 0 holds %s, not boot code",
				      probe_hit_name(in0, name, sizeof name));
		else
			report_printf(r, DIAG_INFO, "boot.foreign",
				      "LBA 0 holds boot code that is not anysector's");
	} else {
		report_printf(r, DIAG_INFO, "boot.none", "LBA 0 holds no boot code");
	}
	if (di->label == LABEL_NONE || di->esp < 0) {
		if (di->label != LABEL_NONE)
			report_printf(r, di->has_stage1 ? DIAG_WARN : DIAG_INFO, "boot.no_esp",
				      "no %s on this disk", di->label == LABEL_GPT ? "EFI system partition"
				      : "FAT boot partition");
		return;
	}
	const struct part_info *bp = &di->parts[di->esp];
	struct fat_ctx *c = xcalloc(1, sizeof *c);
	struct report q;
	report_init(&q, false);
	if (part_slice(h, bp, &c->part) || fat_mount(&c->part, &c->fs, &q.diag)) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		report_printf(r, di->has_stage1 ? DIAG_ERROR : DIAG_WARN, "boot.esp_fat",
			      "boot partition %u holds no valid FAT filesystem (%.900s)", bp->number,
			      it ? it->msg : "the partition is outside the disk");
	} else {
		/* The chains install and add build on (tools/esp/espfs.c): a broken one is an error
		 * whether or not anything of ours is on the disk yet. */
		char problem[1200];
		if (esp_chain_problem(&c->fs, &c->part, problem, sizeof problem) == AS_ECORRUPT)
			report_printf(r, DIAG_ERROR, "boot.esp_chains",
				      "boot partition %u has FAT errors: %.900s", bp->number, problem);
		bool efi = fat_has(c, "/EFI/BOOT/BOOTX64.EFI");
		if (efi)
			check_efi_files(c, bp->number, r);
		else
			report_printf(r, di->has_stage1 ? DIAG_WARN : DIAG_INFO, "boot.no_efi",
				      "partition %u has no \\EFI\\BOOT\\BOOTX64.EFI: UEFI firmware will "
				      "not boot this disk",
				      bp->number);
		check_config(h, di, bp, c, di->has_stage1 || efi, r);
	}
	report_free(&q);
	free(c);
}
