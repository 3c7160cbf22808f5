/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/ops/check_lock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg_lock.h"
#include "common/config.h"
#include "common/errors.h"
#include "common/sha256.h"
#include "tools/base/util.h"
#include "tools/boot/cfglock.h"
#include "tools/ops/lockcfg.h"

#define LOADER_FILE_MAX (64u << 20)

/* A whole file of fs into a malloc'd buffer (absent: AS_ENOENT). Returns 0 or an AS_* code. */
static int read_fat_file(struct fat_fs *fs, const char *path, size_t max, uint8_t **buf,
			 uint32_t *len)
{
	struct fat_file f;
	int rc = fat_open(fs, path, &f, NULL);

	if (rc)
		return rc;
	if (f.is_dir || f.size > max)
		return f.is_dir ? AS_EISDIR : AS_ETOOBIG;
	*buf = xmalloc(f.size ? f.size : 1);
	if ((rc = fat_read(fs, &f, 0, *buf, f.size, NULL))) {
		free(*buf);
		return rc;
	}
	*len = f.size;
	return 0;
}

/* The backslashed form of a path, for messages. */
static const char *shown(const char *path, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", path);
	for (char *c = buf; *c; c++)
		if (*c == '/')
			*c = '\\';
	return buf;
}

bool check_lock(struct fat_fs *fs, unsigned part, bool bios, struct report *r)
{
	struct loader_lock found = { 0 };
	const char *where = NULL;
	uint8_t *buf, got[SHA256_BYTES];
	uint32_t len;

	for (unsigned i = 0; i < CFG_LOCK_LOADERS && !found.lock.locked; i++) {
		struct loader_lock ll;
		struct efi_binary b;
		if (read_fat_file(fs, cfg_lock_loaders[i], LOADER_FILE_MAX, &buf, &len))
			continue;
		efi_binary_inspect(buf, len, &b);
		loader_lock_inspect(buf, len, &ll);
		free(buf);
		if (strcmp(b.component, "anysector") || !ll.block)
			continue;
		if (ll.bad)
			ll.lock.locked = true;  /* the loader takes it so: locked to nothing */
		found = ll;
		where = cfg_lock_loaders[i];
	}
	if (!found.lock.locked) {
		report_printf(r, DIAG_INFO, "boot.lock", "partition %u: %s is not locked to the "
			      "loader (install --lock-config locks it)", part, CFG_FILE_NAME);
		return false;
	}
	/* stage2 reads the lock from the loader (common/cfg_fat.h cfg_lock_read_fat) */
	if (bios)
		report_printf(r, DIAG_INFO, "boot.lock_bios", "stage2 follows the lock under BIOS "
			      "too (not its legacy-gap build), but BIOS has no Secure Boot: nothing "
			      "keeps stage2 or the loader from being replaced");
	int rc = read_fat_file(fs, "/" CFG_FILE_NAME, CFG_FILE_MAX_BYTES, &buf, &len);
	if (rc == AS_ENOENT) {
		buf = NULL;
		len = 0;
	} else if (rc) {
		report_printf(r, DIAG_ERROR, "boot.lock_read", "partition %u: %s cannot be read to "
			      "compare it with the lock: %s", part, CFG_FILE_NAME, as_strerror(rc));
		return true;
	}
	sha256(buf ? (const void *)buf : "", len, got);
	free(buf);
	char path[80], text[160];
	if (!cfg_lock_check(&found.lock, got, &r->diag))
		report_printf(r, DIAG_INFO, "boot.lock", "partition %u: %s is %s, and %s matches: "
			      "it boots that file alone (no %s, no editor, every file pinned)", part,
			      shown(where, path, sizeof path),
			      loader_lock_text(&found, text, sizeof text), CFG_FILE_NAME,
			      "/loader/entries");
	return true;
}
