/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/boot.h"

#include "efi/bli.h"
#include "efi/cfglock.h"
#include "efi/initrd.h"
#include "efi/measure.h"
#include "efi/secureboot.h"

#include "common/errors.h"
#include "common/initrd.h"
#include "common/le.h"
#include "common/linux.h"
#include "common/mem.h"
#include "common/pin.h"
#include "common/str.h"
#include "common/uki.h"

/* Loading more than this is surely a wrong file; it also keeps every size below 2^32. */
#define KERNEL_MAX_BYTES (1ull << 30)
#define INITRD_MAX_BYTES (2ull << 30)
#define PE_OFFSET_FIELD 0x3C
#define ADDR_4G 0x100000000ull

static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;

/* "MZ" and a "PE\0\0" signature where e_lfanew points: what the firmware's LoadImage takes. */
static bool is_pe_image(const uint8_t *p, uint32_t size)
{
	if (size < PE_OFFSET_FIELD + 4 || p[0] != 'M' || p[1] != 'Z')
		return false;
	uint32_t pe = le32_load(p + PE_OFFSET_FIELD);
	return pe <= size - 4 && !memcmp(p + pe, "PE\0\0", 4);
}

struct initrd_image {
	struct initrd_join j;
	uint8_t *data;
	UINTN pages;
	uint64_t size;
};

struct read_ctx {
	struct boot_volume *v;
	struct diag *d;
};

static int read_initrd(void *ctx, const char *path, const struct fat_file *f, void *dst)
{
	struct read_ctx *c = ctx;
	return bootvol_read(c->v, path, f, dst, c->d);
}

/* Where the initrd may lie, from the kernel's header (read on its own, before the kernel): the
 * Linux stub copies the initrd out of our buffer through LoadFile2, so only a kernel that does
 * not say it takes an initrd above 4 GiB (xloadflags) keeps it below its initrd_addr_max and
 * 4 GiB; anything else, EFI applications too, lets it go as high as RAM. */
static uint64_t initrd_limit(struct boot_volume *v, const char *kernel)
{
	uint8_t hdr[LINUX_HEADER_BYTES];
	struct linux_header h;
	struct fat_file f;

	if (fat_open(v->fs, kernel, &f, NULL) || f.is_dir)
		return UINT64_MAX;   /* reading the kernel says what is wrong with it */
	uint32_t n = f.size < sizeof hdr ? f.size : sizeof hdr;
	if (fat_read(v->fs, &f, 0, hdr, n, NULL) || linux_header_parse(hdr, n, f.size, &h, NULL) ||
	    (h.xloadflags & LINUX_XLF_CAN_BE_LOADED_ABOVE_4G))
		return UINT64_MAX;
	uint64_t hi = (uint64_t)h.initrd_addr_max + 1;
	return hi < ADDR_4G ? hi : ADDR_4G;
}

/* Opens the initrds and places their block (common/memplace.h) before any byte of them is
 * read: a block that cannot fit costs no read, and its sentence names the largest that would. */
static int place_initrds(struct boot_volume *v, const struct cfg_entry *e, uint64_t hi,
			 struct initrd_image *out, struct diag *d)
{
	uint64_t largest, total;
	int rc;

	if ((rc = initrd_join_open(v->fs, e, &out->j, d)))
		return rc;
	total = out->j.total;
	if (total > INITRD_MAX_BYTES) {
		diag_error(d, "efi.initrd", "entry %s: the initrds add up to %llu bytes, more than "
			   "the %llu this loader accepts", e->name, (unsigned long long)total,
			   INITRD_MAX_BYTES);
		return AS_ETOOBIG;
	}
	out->data = efi_alloc_read_buffer(total, hi, &out->pages, &largest);
	if (!out->data && (!largest || largest >= total))   /* no map, or the map changed */
		out->data = efi_alloc_pages(total, &out->pages);
	if (!out->data) {
		diag_error(d, "efi.nomem", "entry %s: the initrd is %llu bytes, but the largest that "
			   "fits in the free memory the firmware reports%s is %llu bytes", e->name,
			   (unsigned long long)total, hi == UINT64_MAX ? "" : " below initrd_addr_max",
			   (unsigned long long)largest);
		return AS_ENOSPC;
	}
	out->size = total;
	return 0;
}

static int read_initrds(struct boot_volume *v, const struct cfg_entry *e,
			struct initrd_image *rd, struct diag *d)
{
	struct read_ctx c = { v, d };
	int rc;

	if ((rc = initrd_join_read(&rd->j, e, rd->data, read_initrd, &c)))
		return rc;
	return initrd_join_pins(&rd->j, e, rd->data, d);
}

/* The command line as LoadOptions wants it: UCS-2, NUL-terminated (pool memory), in the one
 * encoding the loaders measure (common/measure.h). */
static CHAR16 *widen(const char *s, UINT32 *bytes)
{
	size_t cap = (str_len(s) + 1) * sizeof(CHAR16);
	CHAR16 *w = efi_alloc(cap);
	if (!w)
		return NULL;
	*bytes = (UINT32)measure_utf16(s, (uint8_t *)w, cap);
	return w;
}

/* The one place an EFI image is started, for Linux kernels and EFI applications alike: under
 * Secure Boot shim's SHIM_LOCK verdict (when shim started us), LoadImage from the buffer (the
 * firmware copies it and checks it against db), the command line as UCS-2 LoadOptions,
 * StartImage. Returns only when the image could not be
 * started or came back, after saying so. */
static int start_image(struct boot_volume *v, const struct cfg_entry *e, const char *what,
		       void *buf, uint32_t size, const char *cmdline, struct diag *d)
{
	EFI_DEVICE_PATH *dp = dp_append_file(v->dev_path, e->kernel);
	EFI_HANDLE child = NULL;
	EFI_LOADED_IMAGE *li = NULL;
	CHAR16 *options = NULL;
	UINT32 obytes = 0;
	char sb[24];
	int rc = AS_EUNSUPP;

	if (!is_pe_image(buf, size)) {
		diag_error(d, "efi.not_pe", "entry %s: %s %s is not an EFI executable (no PE header)%s",
			   e->name, what, e->kernel, e->kind == CFG_KIND_LINUX ? ": a Linux kernel "
			   "needs CONFIG_EFI_STUB to boot from UEFI" : "");
		goto out;
	}
	/* Under Secure Boot with shim: shim's verdict first, so a file shim refuses is never
	 * handed to LoadImage (shims that do not hook LoadImage would let the firmware decide). */
	EFI_STATUS s = sb_enabled() ? sb_shim_verify(buf, size) : EFI_NOT_FOUND;
	if (EFI_ERROR(s) && s != EFI_NOT_FOUND) {
		diag_error(d, "efi.secure_boot", "entry %s: Secure Boot: shim refuses %s %s (%s): it "
			   "is not signed by a key shim trusts, or is revoked", e->name, what, e->kernel,
			   efi_status_name(s, sb));
		rc = AS_EDENIED;
		goto out;
	}
	s = g_bs->LoadImage(FALSE, g_image, dp, buf, size, &child);
	if (s == EFI_ACCESS_DENIED || s == EFI_SECURITY_VIOLATION) {
		/* OVMF answers either for a file no key in db signed (docs/FIRMWARE.md "Secure Boot") */
		diag_error(d, "efi.secure_boot", "entry %s: Secure Boot: the firmware refuses %s %s "
			   "(%s): it is not signed by a key in db, or is revoked", e->name, what,
			   e->kernel, efi_status_name(s, sb));
		child = NULL;
		rc = AS_EDENIED;
		goto out;
	}
	if (EFI_ERROR(s)) {
		diag_error(d, "efi.load_image", "entry %s: the firmware refused to load %s %s (%s)",
			   e->name, what, e->kernel, efi_status_name(s, sb));
		child = NULL;
		goto out;
	}
	if (EFI_ERROR(g_bs->HandleProtocol(child, &loaded_image_guid, (void **)&li)) || !li) {
		diag_error(d, "efi.loaded_image", "entry %s: the loaded %s has no LoadedImage protocol "
			   "to take its command line", e->name, what);
		goto out;
	}
	/* A unified kernel image's stub uses its own .cmdline unless LoadOptions are given (and
	 * ignores them under Secure Boot): only an edited line goes there. */
	bool give = e->kind == CFG_KIND_UKI ? str_cmp(cmdline, e->cmdline) != 0
					     : cmdline[0] || e->kind == CFG_KIND_LINUX;
	if (give) {
		if (!(options = widen(cmdline, &obytes))) {
			rc = AS_ENOMEM;
			goto out;
		}
		li->LoadOptions = options;
		li->LoadOptionsSize = obytes;
		/* what the image gets, after any edit at the menu, as systemd-boot measures it */
		measure_cmdline(efi_measure(d), options, obytes);
	}
	con_printf("Starting %s (%u bytes)\n", e->kernel, size);
	bli_exec_time();
	s = g_bs->StartImage(child, NULL, NULL);
	/* Only an image that failed (or an application that ended) comes back. */
	diag_error(d, "efi.start_image", "entry %s: %s %s returned to the loader (%s)", e->name, what,
		   e->kernel, efi_status_name(s, sb));
	child = NULL; /* an image that has run and exited is unloaded by the firmware */
	rc = AS_EABORT;
out:
	if (child)
		g_bs->UnloadImage(child);
	efi_free(options);
	efi_free(dp);
	return rc;
}

int boot_entry(struct boot_volume *v, const struct cfg_entry *e, const char *cmdline,
	       struct diag *d)
{
	struct initrd_image rd = { 0 };
	struct boot_volume other = { 0 };
	const char *what = e->kind == CFG_KIND_EFI ? "EFI application"
			   : e->kind == CFG_KIND_UKI ? "unified kernel image" : "kernel";
	void *image = NULL;
	UINTN pages = 0;
	uint32_t size;
	char sb[24];
	int rc;

	if (e->kind == CFG_KIND_CHAIN) {
		diag_error(d, "efi.chainload", "entry %s starts a BIOS boot record, which UEFI cannot "
			   "start", e->name);
		return AS_EUNSUPP;
	}
	/* A locked configuration was pinned whole when it was locked; an entry that is not was
	 * not locked by anysector, and is not booted. */
	struct cfg_lock lock;
	cfglock_get(&lock);
	if ((rc = cfg_lock_entry(&lock, e, d)))
		return rc;
	if (e->partition) {
		/* The file and the device path the image gets are that partition's. */
		if ((rc = bootvol_open_partition(v, e->partition, &other, d)))
			return rc;
		v = &other;
		con_printf("Loading %s: %s on partition %u\n", e->title[0] ? e->title : e->name,
			   e->kernel, e->partition);
	} else {
		con_printf("Loading %s: %s\n", e->title[0] ? e->title : e->name, e->kernel);
	}
	efi_blockdev_log_start();
	if (e->ninitrd && (rc = place_initrds(v, e, initrd_limit(v, e->kernel), &rd, d)))
		goto out;
	if ((rc = bootvol_read_file(v, e->kernel, KERNEL_MAX_BYTES, &image, &size, &pages, d))) {
		diag_error(d, "efi.kernel", "entry %s: cannot load %s %s from %s (%s)", e->name,
			   what, e->kernel, v->name, as_strerror(rc));
		goto out;
	}
	/* a UKI is judged as the menu judged it, on the bytes that will run; a pinned file is
	 * compared before anything of it runs (common/pin.h), a UKI as one file */
	struct uki u;
	if ((e->kind == CFG_KIND_UKI &&
	     (rc = uki_parse(image, size, size, e->kernel, CFG_CMDLINE_MAX, &u, d))) ||
	    (rc = pin_check(e, PIN_KERNEL, image, size, NULL, 0, d)))
		goto out;
	if (e->ninitrd) {
		if ((rc = read_initrds(v, e, &rd, d)))
			goto out;
		EFI_STATUS s = initrd_publish(rd.data, rd.size);
		if (EFI_ERROR(s)) {
			diag_error(d, "efi.initrd_publish", "entry %s: cannot offer the initrd to the "
				   "kernel (%s%s)", e->name, efi_status_name(s, sb),
				   s == EFI_ALREADY_STARTED ? ": another loader already offers one" : "");
			rc = AS_EUNSUPP;
			goto out;
		}
		con_printf("initrd: %llu bytes at 0x%llx\n", (unsigned long long)rd.size,
			   (unsigned long long)(uintptr_t)rd.data);
	}
	efi_blockdev_print_log();
	rc = start_image(v, e, what, image, size, cmdline, d);
out:
	initrd_unpublish();
	efi_free_pages(image, pages);
	efi_free_pages(rd.data, rd.pages);
	if (v == &other)
		bootvol_close(&other);
	return rc;
}
