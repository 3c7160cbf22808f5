/* SPDX-License-Identifier: BSD-2-Clause */
/* check's second half: the boot code in LBA 0 and the stage2 it points at, and the boot
 * partition's files (loaders, anysector.cfg, pinned hashes, the ownership list), as the loaders
 * will find them. */
#include "tools/ops/fwpath.h"
#include "tools/ops/check_boot.h"
#include "tools/ops/check_lock.h"
#include "tools/ops/check_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg_lock.h"
#include "common/errors.h"
#include "common/uki.h"
#include "common/features.h"
#include "common/le.h"
#include "common/pin.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"
#include "tools/boot/efisig.h"
#include "tools/disk/part_file.h"
#include "tools/esp/bootmenu.h"
#include "tools/esp/esp_chains.h"
#include "tools/esp/espfs.h"
#include "tools/esp/hashfile.h"
#include "tools/ops/owned.h"

/* --- boot code --- */

static const struct part_info *part_by_number(const struct disk_info *di, unsigned number)
{
	for (unsigned i = 0; i < di->nparts; i++)
		if (di->parts[i].number == number)
			return &di->parts[i];
	return NULL;
}

/* The boot partition an intact stage2 names: on this disk, or an error. */
static void check_identity(const uint8_t *img, uint64_t len, uint64_t off,
			   const struct disk_info *di, struct report *r)
{
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
		check_identity(img, len, off, di, r);
		check_state(h, di, le32_load(img + STAGE2_STATE_OFF), r);
		if (le32_load(img + STAGE2_FLAGS_OFF) & STAGE2_FLAG_GAP_BUILD)
			report_printf(r, DIAG_INFO, "boot.gap_build",
				      "stage2 is its legacy-gap build (the disk has no room for all "
				      "of it): %s: not in the legacy-gap stage2", FEATURES_NOT_IN_GAP);
	}
	free(img);
}

struct part_fs {
	struct blockdev part;
	struct fat_fs fs;
};

static bool part_has(struct part_fs *c, const char *path)
{
	struct fat_file f;
	return !fat_open(&c->fs, path, &f, NULL) && !f.is_dir;
}

/* EFI programs larger than this are not boot loaders; check does not read them whole. */
#define EFI_FILE_MAX_BYTES (64u << 20)

/* Reads and describes one EFI program of the boot partition (efisig.h) into *b. Returns 0, or
 * an AS_* code when it is missing, too large or unreadable. */
static int inspect_efi_file(struct part_fs *c, const char *path, struct efi_binary *b)
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
static void check_efi_files(struct part_fs *c, unsigned part, struct report *r)
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
	if (part_has(c, "/EFI/BOOT/mmx64.efi"))
		report_printf(r, DIAG_INFO, "boot.mok_manager",
			      "partition %u: \\EFI\\BOOT\\mmx64.efi (MokManager) present", part);
}

/* The pinned files of e (common/pin.h) hashed as they are on the FAT: a file that differs is the
 * loaders' own sentence, an error (the loaders would not boot it). */
static void check_pins(struct part_fs *c, const struct cfg_entry *e, struct report *r)
{
	uint8_t got[SHA256_BYTES];
	struct fat_file f;

	for (unsigned s = 0; s <= e->ninitrd; s++) {
		/* a missing file is said above; efi with partition N: check_part_file */
		if (!pin_has(e, s) || (s == PIN_KERNEL && e->partition) ||
		    fat_open(&c->fs, pin_path(e, s), &f, NULL) || f.is_dir)
			continue;
		if (!hash_fat_file(&c->fs, &f, got, &r->diag))
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

	if (!err && pin_has(e, PIN_KERNEL) && !hash_fat_file(fs, &f, got, &r->diag))
		pin_compare(e, PIN_KERNEL, got, &r->diag);
	free(fs);
	return err;
}

/* Unified kernel images on a disk whose stage2 is its legacy-gap build, which cannot boot them:
 * what that stage2 leaves out under BIOS and boots instead (an error when nothing). */
static void check_gap_ukis(struct hostdev *h, struct esp_session *s, const struct boot_menu *m,
			   struct report *r)
{
	struct bstate_disk *st = xcalloc(1, sizeof *st);
	const char *why;

	if (!bstate_disk_read(&h->dev, st, &why) && st->stage2_gap)
		boot_menu_gap(s, m, r);
	free(st);
}

/* The boot menu as the loaders build it (anysector.cfg, then /loader/entries): every problem
 * they would show, and the files its entries name. */
static void check_config(struct hostdev *h, const struct disk_info *di,
			 const struct part_info *bp, struct part_fs *c, bool ours, bool locked,
			 struct report *r)
{
	struct esp_session s;
	struct boot_menu *m = xcalloc(1, sizeof *m);
	struct fat_file f;

	if (esp_view(&s, h, bp->first, bp->sectors, bp->number, &c->fs)) {
		free(m);
		return;
	}
	bool has_cfg = !fat_open(&c->fs, "/" CFG_FILE_NAME, &f, NULL);
	bool has_bls = (!fat_open(&c->fs, BLS_ENTRIES_DIR, &f, NULL) && f.is_dir) ||
		       (!fat_open(&c->fs, UKI_DIR, &f, NULL) && f.is_dir);
	if (!has_cfg && !has_bls) {
		report_printf(r, ours ? DIAG_WARN : DIAG_INFO, "boot.no_config",
			      "the boot partition has no %s and no %s: the boot menu will be empty",
			      CFG_FILE_NAME, BLS_ENTRIES_DIR);
	} else if (!boot_menu_load_as(&s, !locked, m, r) && m->valid) {
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
			if (e->kind != CFG_KIND_CHAIN && !e->partition && !part_has(c, e->kernel))
				report_printf(r, DIAG_ERROR, "boot.config_file",
					      "%s entry '%s': %s %s is not on the boot partition",
					      m->src[i].path + 1, e->name,
					      e->kind == CFG_KIND_EFI ? "EFI application" :
					      e->kind == CFG_KIND_UKI ? "unified kernel image" : "kernel",
					      e->kernel);
			for (unsigned k = 0; k < e->ninitrd; k++)
				if (!part_has(c, e->initrd[k]))
					report_printf(r, DIAG_ERROR, "boot.config_file",
						      "%s entry '%s': initrd %s is not on the boot "
						      "partition",
						      m->src[i].path + 1, e->name, e->initrd[k]);
			if (e->kind != CFG_KIND_CHAIN)
				check_pins(c, e, r);
			struct cfg_lock lk = { .locked = locked };
			cfg_lock_entry(&lk, e, &r->diag); /* the locked loaders' own sentence */
		}
		check_gap_ukis(h, &s, m, r);
		int def = cfg_default_index(&m->cfg);
		report_printf(r, DIAG_INFO, "boot.config",
			      "boot menu: %u entr%s, default '%s', timeout %u s (%s); %u from %s "
			      "and %s", m->cfg.nentries, m->cfg.nentries == 1 ? "y" : "ies",
			      def >= 0 ? m->cfg.entries[def].name : "", m->cfg.timeout,
			      m->timeout_from, nbls, BLS_ENTRIES_DIR, UKI_DIR);
	}
	boot_menu_free(m);
	free(m);
	esp_close(&s);
}

/* The ownership list (tools/ops/owned.h): the loaders never read it, but install, add and
 * remove refuse to change the partition while it cannot be read or parsed, so check says so. */
static void check_owned(struct hostdev *h, const struct part_info *bp, struct part_fs *c,
			struct report *r)
{
	struct esp_session s;
	struct owned o;
	char why[300];

	if (esp_view(&s, h, bp->first, bp->sectors, bp->number, &c->fs))
		return;
	memset(&o, 0, sizeof o);
	if (!owned_read(&o, &s, why, sizeof why))
		report_printf(r, DIAG_WARN, "boot.owned",
			      "partition %u: %s: install, add and remove change nothing on it until "
			      "the list is fixed or deleted (the loaders do not read it)", bp->number,
			      why);
	owned_free(&o);
	esp_close(&s);
}

void check_boot(struct hostdev *h, struct disk_info *di, struct report *r)
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
	struct part_fs *c = xcalloc(1, sizeof *c);
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
		if (esp_chain_problem(&c->fs, &c->part, NULL, problem, sizeof problem) == AS_ECORRUPT)
			report_printf(r, DIAG_ERROR, "boot.esp_chains",
				      "boot partition %u has FAT errors: %.900s", bp->number, problem);
		bool efi = part_has(c, "/EFI/BOOT/BOOTX64.EFI");
		check_firmware_paths(h, di, bp, &c->fs, r);
		if (efi)
			check_efi_files(c, bp->number, r);
		else
			report_printf(r, di->has_stage1 ? DIAG_WARN : DIAG_INFO, "boot.no_efi",
				      "partition %u has no \\EFI\\BOOT\\BOOTX64.EFI: UEFI firmware will "
				      "not boot this disk",
				      bp->number);
		bool locked = check_lock(&c->fs, bp->number, di->has_stage1, r);
		check_config(h, di, bp, c, di->has_stage1 || efi, locked, r);
		check_owned(h, bp, c, r);
	}
	report_free(&q);
	free(c);
}
