/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/ops/fwpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/le.h"
#include "tools/base/util.h"
#include "tools/boot/efisig.h"
#include "tools/boot/loadopt.h"
#include "tools/dev/efivars.h"

#define FW_EFI_MAX (64u << 20)   /* EFI programs larger than this are not read */

/* What the EFI program at path on fs is. Returns 0 or an AS_* code. */
static int read_efi(struct fat_fs *fs, const char *path, struct efi_binary *b)
{
	struct fat_file f;
	int rc = fat_open(fs, path, &f, NULL);
	if (rc)
		return rc;
	if (f.is_dir || f.size > FW_EFI_MAX)
		return f.is_dir ? AS_EISDIR : AS_ETOOBIG;
	uint8_t *buf = xmalloc(f.size ? f.size : 1);
	if (!(rc = fat_read(fs, &f, 0, buf, f.size, NULL)))
		efi_binary_inspect(buf, f.size, b);
	free(buf);
	return rc;
}

/* Whether the program at path (a '\' or '/' path) starts anysector: anysector's loader, or shim
 * with anysector's loader as grubx64.efi beside it. */
static bool starts_anysector(struct fat_fs *fs, const char *path)
{
	struct efi_binary b;
	char p[LOADOPT_PATH_MAX + 32];

	snprintf(p, sizeof p, "%s", path);
	for (char *c = p; *c; c++)
		if (*c == '\\')
			*c = '/';
	if (read_efi(fs, p, &b) || !b.pe)
		return false;
	if (!strcmp(b.component, "anysector"))
		return true;
	if (strcmp(b.component, "shim"))
		return false;
	char *slash = strrchr(p, '/');
	snprintf(slash ? slash + 1 : p, sizeof p - (size_t)(slash ? slash + 1 - p : 0), "%s",
		 SHIM_SECOND_STAGE);
	return !read_efi(fs, p, &b) && b.pe && !strcmp(b.component, "anysector");
}

/* Whether li's HD node names bp of this disk. */
static bool on_boot_partition(const struct disk_info *di, const struct part_info *bp,
			      const struct loadopt_info *li)
{
	if (!li->has_hd || !li->has_file || li->hd.number != bp->number)
		return false;
	if (di->label == LABEL_GPT)
		return li->hd.gpt && !memcmp(li->hd.signature, bp->unique.b, 16);
	return !li->hd.gpt && le32_load(li->hd.signature) == di->mbr.disk_sig;
}

struct fw_found {
	char names[600];
	size_t at;
	unsigned n;
};

static void found_add(struct fw_found *f, const char *name)
{
	if (f->at < sizeof f->names)
		f->at += (size_t)snprintf(f->names + f->at, sizeof f->names - f->at, "%s%s",
					  f->n ? ", " : "", name);
	f->n++;
}

/* The Boot#### entries of the running system that point at bp: BootOrder's first, then the
 * others. */
static void check_entries(const struct disk_info *di, const struct part_info *bp,
			  struct fat_fs *fs, const char *dir, struct fw_found *found,
			  struct report *r)
{
	uint16_t *ids = xcalloc(0x10000 + 256, sizeof *ids);
	unsigned n = 0, norder = 0;
	uint8_t *data;
	size_t len;
	uint32_t attr;

	if (!efivar_read(dir, "BootOrder", &attr, &data, &len)) {
		for (size_t i = 0; i + 1 < len && n < 256; i += 2)
			ids[n++] = le16_load(data + i);
		free(data);
	}
	norder = n;
	n += efivar_boot_ids(dir, ids + n, 0x10000);
	for (unsigned i = 0; i < n; i++) {
		char name[16];
		struct loadopt_info li;
		bool dup = false;
		for (unsigned k = 0; k < i && !dup; k++)
			dup = ids[k] == ids[i];
		snprintf(name, sizeof name, "Boot%04X", ids[i]);
		if (dup || efivar_read(dir, name, &attr, &data, &len))
			continue;
		bool ok = !loadopt_parse(data, len, &li) && on_boot_partition(di, bp, &li);
		free(data);
		if (!ok)
			continue;
		bool ours = starts_anysector(fs, li.path);
		char pos[40] = ", not in BootOrder";
		if (i < norder)
			snprintf(pos, sizeof pos, ", position %u in BootOrder", i + 1);
		report_printf(r, DIAG_INFO, "boot.firmware_entry",
			      "firmware boot entry %s \"%s\"%s%s starts %s on partition %u: %s", name,
			      li.desc, pos, li.attributes & LOAD_OPTION_ACTIVE ? "" : " (inactive)",
			      li.path, bp->number, ours ? "anysector" : "not anysector");
		if (ours && (li.attributes & LOAD_OPTION_ACTIVE))
			found_add(found, name);
	}
	free(ids);
}

void check_firmware_paths(const struct hostdev *h, const struct disk_info *di,
			  const struct part_info *bp, struct fat_fs *fs, struct report *r)
{
	static const char *const own[] = { "/EFI/anysector/anysectorx64.efi",
					   "/EFI/anysector/shimx64.efi" };
	struct fw_found found = { .at = 0 };
	bool have_own = false;

	const char *dir = efivars_dir();
	if (dir && efivars_sees(h))
		check_entries(di, bp, fs, dir, &found, r);
	for (unsigned i = 0; i < 2; i++) {
		if (!starts_anysector(fs, own[i]))
			continue;
		have_own = true;
		report_printf(r, DIAG_INFO, "boot.efi_own",
			      "partition %u: %s starts anysector (a firmware boot entry must name it)",
			      bp->number, i ? "\\EFI\\anysector\\shimx64.efi"
					    : "\\EFI\\anysector\\anysectorx64.efi");
	}
	if (starts_anysector(fs, "/EFI/BOOT/BOOTX64.EFI"))
		found_add(&found, "the fallback path \\EFI\\BOOT\\BOOTX64.EFI");
	if (found.n)
		report_printf(r, DIAG_INFO, "boot.firmware_paths",
			      "firmware paths that start anysector: %s", found.names);
	else if (have_own && dir && efivars_sees(h))
		report_printf(r, DIAG_WARN, "boot.firmware_paths",
			      "no firmware path starts anysector: \\EFI\\BOOT\\BOOTX64.EFI is not "
			      "anysector's and no boot entry of this system names its loader");
	else if (have_own)
		report_printf(r, DIAG_INFO, "boot.firmware_paths",
			      "\\EFI\\BOOT\\BOOTX64.EFI is not anysector's: only a firmware boot entry "
			      "of the machine that boots this disk can start it (not seen from here)");
}
