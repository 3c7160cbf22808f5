/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/disks.h"

#include "efi/blockio.h"
#include "efi/devpath.h"

#include "common/align.h"
#include "common/errors.h"
#include "common/gpt.h"
#include "common/label.h"
#include "common/mbr.h"
#include "common/mem.h"

static EFI_GUID block_io_guid = EFI_BLOCK_IO_PROTOCOL_GUID;

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/* One partition's start judged against the disk's topology, printed (info) or, when wrong,
 * reported (check). */
static void judge_start(unsigned dev_no, unsigned part, const char *name, uint64_t first,
			uint64_t sectors, const struct topology *t, bool check, struct diag *d)
{
	uint64_t g_phys = align_grain(t, false), g_mib = align_grain(t, true);
	bool phys_ok = align_lba_ok(t, first, g_phys);
	bool mib_ok = align_lba_ok(t, first, g_mib);

	if (!check) {
		con_printf("  partition %u%s%s%s: start LBA %llu, %llu sectors, physically aligned %s, "
			   "1 MiB aligned %s\n", part, name[0] ? " \"" : "", name, name[0] ? "\"" : "",
			   (unsigned long long)first, (unsigned long long)sectors, yes_no(phys_ok),
			   yes_no(mib_ok));
		return;
	}
	if (!phys_ok)
		diag_warn(d, "efi.misaligned_phys", "device %u partition %u starts at LBA %llu, not on "
			  "a physical sector boundary (%u-byte sectors, alignment offset %u); the "
			  "next aligned start is LBA %llu", dev_no, part, (unsigned long long)first,
			  t->pss, t->aoff, (unsigned long long)align_up(t, first, g_phys));
	else if (!mib_ok)
		diag_warn(d, "efi.misaligned_mib", "device %u partition %u starts at LBA %llu, not on "
			  "a 1 MiB boundary; the next aligned start is LBA %llu", dev_no, part,
			  (unsigned long long)first, (unsigned long long)align_up(t, first, g_mib));
}

static void report_gpt(unsigned dev_no, struct blockdev *dev, const struct gpt *g,
		       const struct mbr *lba0, const struct topology *t, bool check, struct diag *d)
{
	if (!check)
		con_printf("  GPT (%s header), %u partitions\n", g->used_backup ? "backup" : "primary",
			   g->count);
	for (unsigned i = 0; i < g->count; i++) {
		const struct gpt_part *p = &g->parts[i];
		char name[GPT_NAME_UNITS + 1];
		gpt_name_get(&p->e, name);
		judge_start(dev_no, p->number, name, p->e.first_lba,
			    p->e.last_lba - p->e.first_lba + 1, t, check, d);
	}
	/* The protective MBR decides whether other systems see the GPT at all. */
	if (check)
		mbr_check_protective(lba0, dev->sectors, d);
}

static void report_mbr(unsigned dev_no, const struct mbr_table *m, const struct topology *t,
		       bool check, struct diag *d)
{
	if (!check)
		con_printf("  MBR, %u partitions\n", m->count);
	for (unsigned i = 0; i < m->count; i++) {
		const struct mbr_part *p = &m->parts[i];
		if (!mbr_type_is_extended(p->type))
			judge_start(dev_no, p->number, "", p->first_lba, p->sectors, t, check, d);
	}
}

/* The partition table of one whole disk. */
static void report_table(unsigned dev_no, struct efi_blockdev *bd, bool check, struct diag *d)
{
	struct blockdev *dev = &bd->dev;
	struct topology t = {
		.lss = dev->sector_size, .pss = dev->phys_size, .aoff = dev->align_offset,
		.sectors = dev->sectors,
	};
	struct gpt *g = efi_alloc(sizeof *g);
	struct mbr_table *m = efi_alloc(sizeof *m);
	int rc;

	if (!g || !m) {
		diag_error(d, "efi.nomem", "device %u: out of memory reading its partition table",
			   dev_no);
		goto out;
	}
	struct label lb;
	if ((rc = label_read(dev, &m->mbr, &lb))) {
		diag_error(d, "efi.lba0", "device %u: LBA 0 cannot be read (%s)", dev_no,
			   as_strerror(rc));
	} else if (lb.kind == LABEL_NONE) {
		if (!check)
			con_puts("  no partition table\n");
	} else if (lb.kind == LABEL_GPT) {
		rc = gpt_read(dev, g, d);
		if (rc == 0)
			report_gpt(dev_no, dev, g, &m->mbr, &t, check, d);
		else if (rc == AS_ENOENT)
			diag_error(d, "efi.pmbr_no_gpt", "device %u: a protective MBR but no GPT at LBA 1 "
				   "for %u-byte sectors (was the table written for another sector "
				   "size?)", dev_no, dev->sector_size);
		else
			diag_error(d, "efi.gpt", "device %u: its GPT cannot be used (%s)", dev_no,
				   as_strerror(rc));
	} else if ((rc = mbr_read(dev, m, d)) == 0) {
		report_mbr(dev_no, m, &t, check, d);
	} else {
		diag_error(d, "efi.mbr", "device %u: its MBR cannot be used (%s)", dev_no,
			   as_strerror(rc));
	}
out:
	efi_free(g);
	efi_free(m);
}

static void print_media(EFI_BLOCK_IO *bio)
{
	EFI_BLOCK_IO_MEDIA *m = bio->Media;
	bool rev2 = bio->Revision >= EFI_BLOCK_IO_PROTOCOL_REVISION2;

	con_printf("  %s, media present %s, removable %s, read-only %s, revision 0x%08llx\n",
		   m->LogicalPartition ? "partition" : "whole disk", yes_no(m->MediaPresent),
		   yes_no(m->RemovableMedia), yes_no(m->ReadOnly), (unsigned long long)bio->Revision);
	con_printf("  BlockSize %u, LastBlock %llu, IoAlign %u", m->BlockSize,
		   (unsigned long long)m->LastBlock, m->IoAlign);
	if (rev2)
		con_printf(", LogicalBlocksPerPhysicalBlock %u, LowestAlignedLba %llu",
			   m->LogicalBlocksPerPhysicalBlock, (unsigned long long)m->LowestAlignedLba);
	else
		con_puts(", LogicalBlocksPerPhysicalBlock n/a, LowestAlignedLba n/a");
	con_puts("\n");
}

/* Calls fn for every BlockIo handle; returns how many there were. */
static UINTN for_each_blockio(void (*fn)(unsigned no, EFI_HANDLE h, void *ctx), void *ctx)
{
	EFI_HANDLE *handles = NULL;
	UINTN n = 0;

	if (EFI_ERROR(g_bs->LocateHandleBuffer(ByProtocol, &block_io_guid, NULL, &n, &handles)))
		return 0;
	for (UINTN i = 0; i < n; i++)
		fn((unsigned)i + 1, handles[i], ctx);
	g_bs->FreePool(handles);
	return n;
}

static void info_one(unsigned no, EFI_HANDLE h, void *ctx)
{
	EFI_BLOCK_IO *bio = NULL;
	struct efi_blockdev bd;
	const char *why;

	(void)ctx;
	con_printf("BlockIo device %u: ", no);
	dp_print(dp_of_handle(h));
	con_puts("\n");
	if (EFI_ERROR(g_bs->HandleProtocol(h, &block_io_guid, (void **)&bio)) || !bio || !bio->Media)
		return;
	print_media(bio);
	if (bio->Media->LogicalPartition || !bio->Media->MediaPresent)
		return;
	if (efi_blockdev_open(h, &bd, &why)) {
		con_printf("  cannot read it: %s\n", why);
		return;
	}
	if (bd.dev.phys_size != bd.dev.sector_size || bd.dev.align_offset)
		con_printf("  alignment judged with %u-byte physical sectors, offset %u\n",
			   bd.dev.phys_size, bd.dev.align_offset);
	struct con_diag cd;
	con_diag_init(&cd, false);
	report_table(no, &bd, false, &cd.d);
	efi_blockdev_close(&bd);
}

EFI_STATUS disks_info(void)
{
	if (!for_each_blockio(info_one, NULL)) {
		con_puts("The firmware reports no BlockIo devices.\n");
		return EFI_NOT_FOUND;
	}
	return EFI_SUCCESS;
}

static void check_one(unsigned no, EFI_HANDLE h, void *ctx)
{
	struct diag *d = ctx;
	EFI_BLOCK_IO *bio = NULL;
	struct efi_blockdev bd;

	if (EFI_ERROR(g_bs->HandleProtocol(h, &block_io_guid, (void **)&bio)) || !bio || !bio->Media ||
	    bio->Media->LogicalPartition || !bio->Media->MediaPresent)
		return;
	con_printf("device %u: ", no);
	dp_print(dp_of_handle(h));
	con_printf(" (BlockSize %u)\n", bio->Media->BlockSize);
	if (efi_blockdev_open(h, &bd, NULL))
		return;
	report_table(no, &bd, true, d);
	efi_blockdev_close(&bd);
}

void disks_check(struct diag *d)
{
	for_each_blockio(check_one, d);
}
