/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/rename.h"

#include "common/bls.h"
#include "common/bootcount.h"
#include "common/errors.h"
#include "common/fat.h"
#include "common/mem.h"
#include "common/str.h"
#include "common/uki.h"
#include "efi/bli.h"

static EFI_GUID sfs_guid = EFI_SIMPLE_FILE_SYSTEM_PROTOCOL_GUID;
static EFI_GUID file_info_guid = EFI_FILE_INFO_ID;

/* dir + '\\' + name as UCS-2 ('/' turned into '\\'); false when it does not fit. */
static bool wide_path(const char *dir, const char *name, CHAR16 *out, size_t cap)
{
	size_t n = 0;

	for (const char *p = dir; *p && n + 1 < cap; p++)
		out[n++] = *p == '/' ? '\\' : (unsigned char)*p;
	if (n + 1 < cap && (!n || out[n - 1] != '\\'))
		out[n++] = '\\';
	for (const char *p = name; *p && n + 1 < cap; p++)
		out[n++] = (unsigned char)*p;
	if (n + 1 >= cap)
		return false;
	out[n] = 0;
	return true;
}

/* The file's EFI_FILE_INFO with its name replaced by to (pool memory; *bytes its size). */
static EFI_FILE_INFO *renamed_info(EFI_FILE_HANDLE fh, const char *to, UINTN *bytes,
				   EFI_STATUS *s)
{
	UINTN size = 0;
	EFI_FILE_INFO *info = NULL, *out;
	size_t n = str_len(to);

	*s = fh->GetInfo(fh, &file_info_guid, &size, NULL);
	if (*s != EFI_BUFFER_TOO_SMALL || !(info = efi_alloc(size)) ||
	    EFI_ERROR((*s = fh->GetInfo(fh, &file_info_guid, &size, info)))) {
		efi_free(info);
		return NULL;
	}
	*bytes = SIZE_OF_EFI_FILE_INFO + (n + 1) * sizeof(CHAR16);
	if ((out = efi_alloc(*bytes))) {
		memcpy(out, info, SIZE_OF_EFI_FILE_INFO);
		out->Size = *bytes;
		for (size_t i = 0; i <= n; i++)
			out->FileName[i] = (unsigned char)to[i];
	}
	efi_free(info);
	*s = out ? EFI_SUCCESS : EFI_OUT_OF_RESOURCES;
	return out;
}

int bootvol_rename(const struct boot_volume *v, const char *dir, const char *from, const char *to,
		   struct diag *d)
{
	EFI_DEVICE_PATH *rest = v->dev_path;
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *sfs = NULL;
	EFI_FILE_HANDLE root = NULL, fh = NULL;
	EFI_FILE_INFO *info = NULL;
	EFI_HANDLE h = NULL;
	CHAR16 path[FAT_PATH_MAX];
	UINTN bytes = 0;
	EFI_STATUS s = EFI_INVALID_PARAMETER;
	char sb[24];

	if (!wide_path(dir, from, path, FAT_PATH_MAX))
		goto out;
	if (EFI_ERROR((s = g_bs->LocateDevicePath(&sfs_guid, &rest, &h))) ||
	    EFI_ERROR((s = g_bs->HandleProtocol(h, &sfs_guid, (void **)&sfs))) ||
	    EFI_ERROR((s = sfs->OpenVolume(sfs, &root))) ||
	    EFI_ERROR((s = root->Open(root, &fh, path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE,
				      0))) ||
	    !(info = renamed_info(fh, to, &bytes, &s)) ||
	    EFI_ERROR((s = fh->SetInfo(fh, &file_info_guid, bytes, info))))
		goto out;
	s = fh->Flush(fh);
out:
	efi_free(info);
	if (fh)
		fh->Close(fh);
	if (root)
		root->Close(root);
	if (EFI_ERROR(s)) {
		diag_warn(d, "efi.rename", "%s/%s could not be renamed to %s (%s)", dir, from, to,
			  efi_status_name(s, sb));
		return AS_EIO;
	}
	return 0;
}

void bootvol_count_try(const struct boot_volume *v, const struct cfg_entry *e, struct diag *d)
{
	char next[BLS_NAME_MAX + 1], path[sizeof BLS_ENTRIES_DIR + BLS_NAME_MAX + 1];
	/* a Type #2 entry is its file in /EFI/Linux (common/uki.h) */
	const char *dir = e->kind == CFG_KIND_UKI ? UKI_DIR : BLS_ENTRIES_DIR;
	size_t dn = str_len(dir);

	if (!bootcount_bls_next(e, next, sizeof next) || bootvol_rename(v, dir, e->file, next, d))
		return;
	str_copy(path, sizeof path, dir);
	path[dn] = '/';
	str_copy(path + dn + 1, sizeof path - dn - 1, next);
	bli_boot_count_path(path);
	con_printf("boot counting: %s/%s is now %s\n", dir, e->file, next);
}
