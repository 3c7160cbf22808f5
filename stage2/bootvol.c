/* SPDX-License-Identifier: BSD-2-Clause */
#include "stage2/bootvol.h"

#include "common/cfg_fat.h"
#include "common/errors.h"
#include "common/features.h"
#include "common/gpt.h"
#include "common/guid.h"
#include "common/label.h"
#include "common/mbr.h"
#include "common/str.h"
#include "stage2/console.h"
#include "stage2/layout.h"

static struct gpt gpt;
static struct mbr_table mbrt;
static enum label_kind table;   /* which of the two was read */

static int slice(struct blockdev *disk, uint64_t first, uint64_t count, struct blockdev *part,
		 const char *what)
{
	int rc = bdev_slice(disk, first, count, part);
	if (rc)
		con_printf("%s (LBA %llu, %llu sectors) does not fit on the disk\n", what,
			   (unsigned long long)first, (unsigned long long)count);
	return rc;
}

static int from_gpt(struct blockdev *disk, const struct guid *want, struct blockdev *part)
{
	char gs[GUID_STR_LEN + 1];
	int rc = gpt_read(disk, &gpt, &con_diag);

	if (rc) {
		con_printf("the disk has no usable GPT (%s)\n", as_strerror(rc));
		return rc;
	}
	for (unsigned i = 0; i < gpt.count; i++) {
		const struct gpt_part *p = &gpt.parts[i];
		bool pick = want ? guid_eq(&p->e.unique, want) : guid_eq(&p->e.type, &GUID_ESP);
		if (!pick)
			continue;
		con_printf("boot partition: GPT partition %u, LBA %llu..%llu\n", p->number,
			   (unsigned long long)p->e.first_lba, (unsigned long long)p->e.last_lba);
		return slice(disk, p->e.first_lba, p->e.last_lba - p->e.first_lba + 1, part,
			     "the boot partition");
	}
	if (want) {
		guid_format(want, gs);
		con_printf("no GPT partition has the unique GUID %s that stage2 was installed for\n", gs);
	} else {
		con_printf("the GPT has no EFI system partition\n");
	}
	return AS_ENOENT;
}

static int from_mbr(struct blockdev *disk, const struct stage2_identity *id, struct blockdev *part)
{
	const struct mbr_part *found = 0;
	unsigned want;

	if (id) {
		if (mbrt.mbr.disk_sig != id->mbr_disk_sig) {
			con_printf("the MBR disk signature is %08X, but stage2 was installed for disk %08X\n",
				   mbrt.mbr.disk_sig, id->mbr_disk_sig);
			return AS_ENOENT;
		}
		want = id->mbr_part;
	} else if (!(want = mbr_boot_part(&mbrt.mbr))) {
		con_printf("the MBR has no FAT partition to boot from\n");
		return AS_ENOENT;
	}
	/* mbr_read listed every entry mbr_boot_part can name: only a recorded number can miss. */
	for (unsigned i = 0; i < mbrt.count && !found; i++)
		if (mbrt.parts[i].number == want)
			found = &mbrt.parts[i];
	if (!found) {
		con_printf("the MBR has no partition %u, which stage2 was installed for\n", want);
		return AS_ENOENT;
	}
	con_printf("boot partition: MBR partition %u, LBA %llu, %llu sectors\n", found->number,
		   (unsigned long long)found->first_lba, (unsigned long long)found->sectors);
	return slice(disk, found->first_lba, found->sectors, part, "the boot partition");
}

int bootvol_find(struct blockdev *disk, const struct stage2_identity *id, struct blockdev *part)
{
	struct label lb;
	int rc;

	if ((rc = label_read(disk, &mbrt.mbr, &lb))) {
		con_printf("LBA 0 of the disk cannot be read (%s)\n", as_strerror(rc));
		return rc;
	}
	if (id->kind > STAGE2_KIND_MBR) {
		con_printf("stage2's header names boot partition kind %u, which this stage2 does not "
			   "know\n", (unsigned)id->kind);
		return AS_EUNSUPP;
	}
	bool want_gpt = id->kind == STAGE2_KIND_GPT, want_mbr = id->kind == STAGE2_KIND_MBR;
	if (lb.kind == LABEL_NONE) {
		con_printf("the disk has no partition table (no 0x55AA in LBA 0, no GPT header)\n");
		return AS_ENOENT;
	}
	if ((want_gpt && lb.kind != LABEL_GPT) || (want_mbr && lb.kind != LABEL_MBR)) {
		con_printf("stage2 was installed for a partition of a %s, but the disk now has a%s %s\n",
			   want_gpt ? "GPT" : "MBR", lb.kind == LABEL_MBR ? "n" : "",
			   label_kind_name(lb.kind));
		return AS_ENOENT;
	}
	if (id->kind == STAGE2_KIND_UNSET)
		con_printf("stage2 has no boot partition recorded; looking for one\n");
	table = lb.kind;
	if (lb.kind == LABEL_GPT)
		return from_gpt(disk, want_gpt ? &id->part_guid : 0, part);
	if ((rc = mbr_read(disk, &mbrt, &con_diag))) {
		con_printf("the disk has no usable MBR (%s)\n", as_strerror(rc));
		return rc;
	}
	return from_mbr(disk, want_mbr ? id : 0, part);
}

static struct cfg_lock lock;   /* the UEFI loader's, followed here too (zero: not locked) */

const struct cfg_lock *bootvol_lock(void)
{
	return &lock;
}

int bootvol_config(struct fat_fs *fs, const char *path, struct cfg *cfg, struct measure *m)
{
	static struct bls_scratch bls;
	/* The kernel's real-mode area is free until a kernel is loaded, and holds 64 KiB. */
	char *buf = (char *)__linux_rm;

	if (FEATURE_CFG_LOCK && cfg_lock_read_fat(fs, (uint8_t *)buf, &lock) && lock.locked)
		return cfg_load_fat_locked(fs, path, &lock, cfg, buf, m, &con_diag);
	return cfg_load_fat(fs, path, cfg, buf, &bls, m, &con_diag);
}

int bootvol_partition(unsigned number, uint64_t *first, uint64_t *sectors, uint8_t *mbr_type)
{
	if (table == LABEL_GPT) {
		for (unsigned i = 0; i < gpt.count; i++) {
			const struct gpt_part *p = &gpt.parts[i];
			if (p->number != number)
				continue;
			*first = p->e.first_lba;
			*sectors = p->e.last_lba - p->e.first_lba + 1;
			*mbr_type = MBR_TYPE_GPT_PROTECTIVE;   /* the space a GPT describes */
			return 0;
		}
	} else {
		for (unsigned i = 0; i < mbrt.count; i++) {
			const struct mbr_part *p = &mbrt.parts[i];
			if (p->number != number || mbr_type_is_extended(p->type))
				continue;
			*first = p->first_lba;
			*sectors = p->sectors;
			*mbr_type = p->type;
			return 0;
		}
	}
	con_printf("the boot disk's %s has no partition %u\n", label_kind_name(table), number);
	return AS_ENOENT;
}
