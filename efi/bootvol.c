/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/bootvol.h"
#include "efi/cfglock.h"

#include "common/cfg_fat.h"
#include "common/errors.h"
#include "common/label.h"
#include "common/mbr.h"
#include "common/fmt.h"
#include "common/mem.h"

static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;
static EFI_GUID block_io_guid = EFI_BLOCK_IO_PROTOCOL_GUID;

static EFI_HANDLE own_device(void)
{
	EFI_LOADED_IMAGE *li = NULL;
	if (EFI_ERROR(g_bs->HandleProtocol(g_image, &loaded_image_guid, (void **)&li)) || !li)
		return NULL;
	return li->DeviceHandle;
}

/* The handle of the whole disk a partition path lies on: its path minus the HD node. */
static EFI_HANDLE parent_disk(const EFI_DEVICE_PATH *dp)
{
	EFI_DEVICE_PATH *parent = dp_parent(dp), *rest;
	EFI_HANDLE h = NULL;

	if (!parent)
		return NULL;
	rest = parent;
	if (EFI_ERROR(g_bs->LocateDevicePath(&block_io_guid, &rest, &h)) || !rest ||
	    dp_size(rest) != sizeof(EFI_DEVICE_PATH))
		h = NULL; /* only a handle for exactly that path is the disk */
	efi_free(parent);
	return h;
}

static int find_in_gpt(struct boot_volume *v, struct diag *d)
{
	struct gpt *g = efi_alloc(sizeof *g);
	char want[GUID_STR_LEN + 1];
	int rc;

	if (!g)
		return AS_ENOMEM;
	rc = gpt_read(&v->disk.dev, g, d);
	if (rc) {
		diag_error(d, "efi.gpt", "the GPT of the boot disk cannot be used (%s)", as_strerror(rc));
		goto out;
	}
	guid_format(&v->hd.signature, want);
	rc = AS_ENOENT;
	for (unsigned i = 0; i < g->count; i++) {
		const struct gpt_part *p = &g->parts[i];
		if (!guid_eq(&p->e.unique, &v->hd.signature))
			continue;
		if (p->e.first_lba != v->hd.start)
			diag_warn(d, "efi.hd_start",
				  "GPT entry %u starts at LBA %llu but the firmware says LBA %llu",
				  p->number, (unsigned long long)p->e.first_lba,
				  (unsigned long long)v->hd.start);
		v->part_number = p->number;
		v->part_first = p->e.first_lba;
		v->part_sectors = p->e.last_lba - p->e.first_lba + 1;
		rc = 0;
		break;
	}
	if (rc)
		diag_error(d, "efi.no_partition",
			   "the boot disk's GPT has no partition with unique GUID %s, which the "
			   "firmware says %s", want, v->firmware_says);
out:
	efi_free(g);
	return rc;
}

static int find_in_mbr(struct boot_volume *v, struct diag *d)
{
	struct mbr_table *t = efi_alloc(sizeof *t);
	int rc;

	if (!t)
		return AS_ENOMEM;
	rc = mbr_read(&v->disk.dev, t, d);
	if (rc) {
		diag_error(d, "efi.mbr", "the MBR of the boot disk cannot be used (%s)", as_strerror(rc));
		goto out;
	}
	rc = AS_ENOENT;
	for (unsigned i = 0; i < t->count; i++) {
		const struct mbr_part *p = &t->parts[i];
		if (p->number != v->hd.number || p->first_lba != v->hd.start)
			continue;
		v->part_number = p->number;
		v->part_first = p->first_lba;
		v->part_sectors = p->sectors;
		rc = 0;
		break;
	}
	if (rc)
		diag_error(d, "efi.no_partition",
			   "the boot disk's MBR has no partition %u starting at LBA %llu, which the "
			   "firmware says %s",
			   (unsigned)v->hd.number, (unsigned long long)v->hd.start, v->firmware_says);
out:
	efi_free(t);
	return rc;
}

/* Opens the volume on handle dev (a partition, or a whole device without one): the boot
 * partition (number 0) or partition number of the boot disk, named so in the sentences. */
static int open_volume(EFI_HANDLE dev, unsigned number, struct boot_volume *v, struct diag *d)
{
	EFI_HANDLE disk;
	const char *why = "";
	int rc;

	memset(v, 0, sizeof *v);
	v->table = "none";
	if (number) {
		fmt_snprintf(v->name, sizeof v->name, "partition %u", number);
		fmt_snprintf(v->firmware_says, sizeof v->firmware_says, "is partition %u", number);
	} else {
		fmt_snprintf(v->name, sizeof v->name, "the boot partition");
		fmt_snprintf(v->firmware_says, sizeof v->firmware_says, "this program was loaded "
			     "from");
	}
	v->dev_path = dp_of_handle(dev);
	if (!v->dev_path) {
		diag_error(d, "efi.no_device", "the firmware does not say which device this program "
			   "was loaded from (no device path)");
		return AS_ENOENT;
	}
	v->partitioned = dp_hd_decode(dp_last_node(v->dev_path), &v->hd);
	disk = v->partitioned ? parent_disk(v->dev_path) : dev;
	if (!disk) {
		diag_error(d, "efi.no_disk", "no BlockIo device matches the disk of the partition this "
			   "program was loaded from");
		return AS_ENOENT;
	}
	if ((rc = efi_blockdev_open(disk, &v->disk, &why))) {
		diag_error(d, "efi.disk", "the boot disk cannot be read: %s", why);
		return rc;
	}

	if (!v->partitioned) {
		v->part_sectors = v->disk.dev.sectors;
	} else {
		/* Our rule (common/label.h) reads the table; the firmware's HD node must agree. */
		struct mbr lba0;
		struct label lb;
		bool gpt_node = v->hd.sig_type == SIGNATURE_TYPE_GUID;
		if ((rc = label_read(&v->disk.dev, &lba0, &lb))) {
			diag_error(d, "efi.lba0", "LBA 0 of the boot disk cannot be read (%s)",
				   as_strerror(rc));
		} else if (lb.kind == LABEL_GPT && gpt_node) {
			v->table = "GPT";
			rc = find_in_gpt(v, d);
		} else if (lb.kind == LABEL_MBR && v->hd.sig_type == SIGNATURE_TYPE_MBR) {
			v->table = "MBR";
			rc = find_in_mbr(v, d);
		} else {
			diag_error(d, "efi.hd_type", "the firmware names %s by %s "
				   "(signature type %u), but the boot disk has %s%s", v->name,
				   gpt_node ? "a GPT GUID" : v->hd.sig_type == SIGNATURE_TYPE_MBR ?
				   "an MBR signature" : "neither a GPT GUID nor an MBR signature",
				   v->hd.sig_type, lb.kind == LABEL_GPT ? "a " : lb.kind == LABEL_MBR ?
				   "an " : "", label_kind_name(lb.kind));
			rc = AS_EUNSUPP;
		}
	}
	if (rc)
		goto fail;
	if ((rc = bdev_slice(&v->disk.dev, v->part_first, v->part_sectors, &v->part))) {
		diag_error(d, "efi.part_range", "%s (LBA %llu, %llu sectors) does not fit on its "
			   "disk", v->name, (unsigned long long)v->part_first,
			   (unsigned long long)v->part_sectors);
		goto fail;
	}
	if (!(v->fs = efi_alloc(sizeof *v->fs))) {
		rc = AS_ENOMEM;
		goto fail;
	}
	if ((rc = fat_mount(&v->part, v->fs, d))) {
		diag_error(d, "efi.fat", "%s holds no usable FAT file system (%s)", v->name,
			   as_strerror(rc));
		goto fail;
	}
	return 0;
fail:
	bootvol_close(v);
	return rc;
}

int bootvol_open(struct boot_volume *v, struct diag *d)
{
	return open_volume(own_device(), 0, v, d);
}

/* The firmware's handle for partition number of the disk boot lies on: a BlockIo whose device
 * path is the boot partition's with another HD() node at its end. */
static EFI_HANDLE partition_handle(const struct boot_volume *boot, unsigned number)
{
	EFI_HANDLE *handles = NULL, found = NULL;
	UINTN n = 0;

	if (EFI_ERROR(g_bs->LocateHandleBuffer(ByProtocol, &block_io_guid, NULL, &n, &handles)))
		return NULL;
	for (UINTN i = 0; i < n && !found; i++) {
		EFI_DEVICE_PATH *dp = dp_of_handle(handles[i]);
		struct dp_hd hd;
		if (dp && dp_hd_decode(dp_last_node(dp), &hd) && hd.number == number &&
		    dp_same_parent(dp, boot->dev_path))
			found = handles[i];
	}
	g_bs->FreePool(handles);
	return found;
}

int bootvol_open_partition(const struct boot_volume *boot, unsigned number,
			   struct boot_volume *v, struct diag *d)
{
	EFI_HANDLE h;
	int rc;

	memset(v, 0, sizeof *v);
	if (!boot->partitioned) {
		diag_error(d, "efi.partition", "partition %u: this program was not loaded from a "
			   "partition, so there is no boot disk to look on", number);
		return AS_ENOENT;
	}
	if (!(h = partition_handle(boot, number))) {
		diag_error(d, "efi.partition", "the firmware has no device for partition %u of the "
			   "boot disk (the disk's %s has no such partition, or its type is unused)",
			   number, boot->table);
		return AS_ENOENT;
	}
	if ((rc = open_volume(h, number, v, d)))
		return rc;
	if (v->part_number != number) {
		diag_error(d, "efi.partition", "the firmware's device for partition %u is partition "
			   "%u of the boot disk's %s", number, v->part_number, v->table);
		bootvol_close(v);
		return AS_ECORRUPT;
	}
	return 0;
}

void bootvol_close(struct boot_volume *v)
{
	efi_free(v->fs);
	v->fs = NULL;
	efi_blockdev_close(&v->disk);
}

int bootvol_read(struct boot_volume *v, const char *path, const struct fat_file *f, void *buf,
		 struct diag *d)
{
	char sb[24];
	int rc = fat_read(v->fs, f, 0, buf, f->size, d);

	if (rc == AS_EIO)
		diag_error(d, "efi.read", "reading %s failed: the disk cannot read LBA %llu (%s)", path,
			   (unsigned long long)bdev_disk_err_lba(v->fs->dev),
			   efi_status_name(v->disk.last_status, sb));
	else if (rc)
		diag_error(d, "efi.read", "reading %s failed (%s)", path, as_strerror(rc));
	return rc;
}

int bootvol_read_file(struct boot_volume *v, const char *path, uint64_t max_bytes, void **buf,
		      uint32_t *size, UINTN *pages, struct diag *d)
{
	struct fat_file f;
	int rc;

	*buf = NULL;
	*pages = 0;
	*size = 0;
	if ((rc = fat_open(v->fs, path, &f, d)))
		return rc;
	if (f.is_dir) {
		diag_error(d, "efi.is_dir", "%s is a directory, not a file", path);
		return AS_EISDIR;
	}
	if (f.size > max_bytes) {
		diag_error(d, "efi.too_big", "%s is %u bytes, more than the %llu this program accepts",
			   path, f.size, (unsigned long long)max_bytes);
		return AS_ETOOBIG;
	}
	if (!(*buf = efi_alloc_pages(f.size, pages))) {
		diag_error(d, "efi.nomem", "no memory for the %u bytes of %s", f.size, path);
		return AS_ENOMEM;
	}
	if ((rc = bootvol_read(v, path, &f, *buf, d))) {
		efi_free_pages(*buf, *pages);
		*buf = NULL;
		*pages = 0;
		return rc;
	}
	*size = f.size;
	return 0;
}

int bootvol_load_config(struct boot_volume *v, struct cfg *c, struct measure *m,
			struct diag *d)
{
	UINTN pages = 0;
	char *buf = efi_alloc_pages(CFG_FILE_MAX_BYTES, &pages);
	struct bls_scratch *s = efi_alloc(sizeof *s);
	int rc = AS_ENOMEM;

	struct cfg_lock lock;
	cfglock_get(&lock);
	if (s && buf && lock.locked)
		rc = cfg_load_fat_locked(v->fs, "/" CFG_FILE_NAME, &lock, c, buf, m, d);
	else if (s && buf)
		rc = cfg_load_fat(v->fs, "/" CFG_FILE_NAME, c, buf, s, m, d);
	else
		diag_error(d, "efi.nomem", "no memory to read the boot menu");
	if (buf)
		efi_free_pages(buf, pages);
	efi_free(s);
	return rc;
}
