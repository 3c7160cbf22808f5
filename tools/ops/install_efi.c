/* SPDX-License-Identifier: BSD-2-Clause */
/* install's UEFI part (tools/ops/install_efi.h): the loader files on the ESP, and beside another
 * system the firmware boot entry, as efibootmgr and bootctl write them (Boot#### with HD() +
 * File(), put first in BootOrder; tools/boot/loadopt.h, tools/dev/efivars.h). */
#include "tools/ops/install_efi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/boot/loadopt.h"
#include "tools/dev/efivars.h"
#include "tools/base/exit_codes.h"
#include "tools/base/report.h"
#include "tools/base/util.h"
#include "tools/boot/efisig.h"
#include "tools/esp/espfs.h"
#include "tools/ops/lockcfg.h"

#define OWN_DIR "/EFI/anysector"
#define OWN_LOADER "anysectorx64.efi"   /* what the firmware starts there without shim */
#define OWN_SHIM "shimx64.efi"          /* ... and with it */
#define FALLBACK_DIR "/EFI/BOOT"
#define ENTRY_DESC "anysector"

/* A file beside another: dir of path + name (into out). */
static void beside(const char *path, const char *name, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0;
	snprintf(out, cap, "%.*s%s", dir, path, name);
}

/* MokManager, which shim starts when a MOK change waits (mokutil --import): mmx64.efi or
 * Debian's mmx64.efi.signed beside the shim given, else none (""). */
static void find_mok_manager(const char *shim, char *out, size_t cap)
{
	static const char *const names[] = { "mmx64.efi.signed", "mmx64.efi" };
	for (unsigned i = 0; i < 2; i++) {
		beside(shim, names[i], out, cap);
		if (!access(out, R_OK))
			return;
	}
	out[0] = 0;
}

/* The files of one place the loader goes (the fallback path or anysector's own directory):
 * the file the firmware starts first, then with shim the loader as grubx64.efi and MokManager. */
struct efi_set {
	unsigned n;
	char dst[3][FAT_PATH_MAX];
	const char *src[3];
	const char *role[3];        /* the summary's words after "PATH on partition N" */
};

static void efi_set(struct efi_set *e, const char *dir, const char *first, const char *loader,
		    const struct efi_signing *sg, const char *mm)
{
	memset(e, 0, sizeof *e);
	snprintf(e->dst[0], sizeof e->dst[0], "%s/%s", dir, sg->shim ? (first ? first : OWN_SHIM)
						   : (first ? first : OWN_LOADER));
	e->src[0] = sg->shim ? sg->shim : loader;
	e->role[0] = sg->shim ? ": shim from " : "";
	e->n = 1;
	if (!sg->shim)
		return;
	snprintf(e->dst[1], sizeof e->dst[1], "%s/" SHIM_SECOND_STAGE, dir);
	e->src[1] = loader;
	e->role[1] = ": the loader shim starts";
	e->n = 2;
	if (mm[0]) {
		snprintf(e->dst[2], sizeof e->dst[2], "%s/mmx64.efi", dir);
		e->src[2] = mm;
		e->role[2] = ": MokManager from ";
		e->n = 3;
	}
}

static void backslashed(const char *path, char *out, size_t cap)
{
	snprintf(out, cap, "%s", path);
	for (char *c = out; *c; c++)
		if (*c == '/')
			*c = '\\';
}

/* install treats a program at the firmware's path that anysector did not write as it treats
 * foreign boot code in LBA 0: refused, naming what it is, unless --force; then replaced, its
 * sectors in the journal (a mounted ESP's file is copied beside the backup file by txn_commit).
 * Returns 0 or an exit code. */
static int foreign_efi_file(struct txn *t, const char *dst)
{
	enum own_state st;
	char what[600], shown[FAT_PATH_MAX + 32];

	if (!txn_foreign(t, dst, &st))
		return 0;
	backslashed(dst, shown, sizeof shown);
	owned_describe(&t->esp, dst, what, sizeof what);
	if (!t->force) {
		t_error("refuse.foreign_efi",
			"%s on partition %u holds %s, and %s: install refuses to replace it; use "
			"--force to replace it (the backup keeps a copy)", shown, t->esp.number,
			what[0] ? what : "a file", owned_why_not(st));
		return EXIT_REFUSED;
	}
	t_warn("install.foreign_efi", "--force: replacing %s on partition %u, which holds %s, and %s",
	       shown, t->esp.number, what[0] ? what : "a file", owned_why_not(st));
	if (t->esp.mounted && t->nsaved < ARRAY_SIZE(t->saved))
		snprintf(t->saved[t->nsaved++], sizeof t->saved[0], "%s", dst);
	txn_summary(t, "replaced %s (%s), which anysector had not written", shown,
		    what[0] ? what : "a file");
	return 0;
}

/* Each file of e that is there and not anysector's: refused, or under --force replaced. Returns
 * 0 or an exit code. */
static int refuse_foreign_set(struct txn *t, const struct efi_set *e)
{
	int rc = 0;
	for (unsigned i = 0; i < e->n && !rc; i++)
		rc = foreign_efi_file(t, e->dst[i]);
	return rc;
}

/* The first file of e that is there and not anysector's, or -1. */
static int first_foreign(struct txn *t, const struct efi_set *e)
{
	enum own_state st;
	for (unsigned i = 0; i < e->n; i++)
		if (txn_foreign(t, e->dst[i], &st))
			return (int)i;
	return -1;
}

static int put_set(struct txn *t, const struct efi_set *e, const char *dir, const char *signer)
{
	int rc = esp_mkdir_p(&t->esp, dir);
	for (unsigned i = 0; i < e->n && !rc; i++) {
		char shown[FAT_PATH_MAX + 32];
		backslashed(e->dst[i], shown, sizeof shown);
		if ((rc = txn_put_owned(t, e->src[i], e->dst[i])))
			break;
		bool loader = i == (e->n > 1 ? 1u : 0u);
		txn_summary(t, "%s on partition %u%s%s%s", shown, t->esp.number, e->role[i],
			    loader ? "" : e->src[i], loader ? signer : "");
	}
	return rc;
}

static bool hd_matches(const struct loadopt_hd *a, const struct loadopt_hd *b)
{
	return a->number == b->number && a->gpt == b->gpt &&
	       !memcmp(a->signature, b->signature, a->gpt ? 16 : 4);
}

/* An existing Boot#### for this loader on this partition (bootctl reuses it too), else the
 * lowest free number. Returns 0 or an exit code. */
static int pick_boot_id(struct nvram_plan *nv, const struct loadopt_hd *hd)
{
	uint16_t *ids = xcalloc(0x10000, sizeof *ids);
	unsigned n = efivar_boot_ids(nv->dir, ids, 0x10000);
	int found = -1;

	for (unsigned i = 0; i < n && found < 0; i++) {
		char name[16];
		uint8_t *data;
		size_t len;
		uint32_t attr;
		struct loadopt_info li;
		snprintf(name, sizeof name, "Boot%04X", ids[i]);
		if (efivar_read(nv->dir, name, &attr, &data, &len))
			continue;
		if (!loadopt_parse(data, len, &li) && li.has_hd && li.has_file &&
		    hd_matches(&li.hd, hd) && loadopt_path_eq(li.path, nv->loader)) {
			found = ids[i];
			nv->write_option = len != nv->option_len || memcmp(data, nv->option, len);
		}
		free(data);
	}
	for (unsigned i = 0, next = 0; found < 0 && next <= 0xFFFF; next++) {
		while (i < n && ids[i] < next)
			i++;
		if (i == n || ids[i] != next)
			found = (int)next;
	}
	free(ids);
	if (found < 0) {
		t_error("nvram.full", "every Boot#### number is taken; nothing was written");
		return EXIT_REFUSED;
	}
	nv->id = (uint16_t)found;
	return 0;
}

/* BootOrder with the entry first, the others after it in their order. Returns 0 or an exit
 * code. */
static int plan_order(struct nvram_plan *nv)
{
	uint8_t *data = NULL;
	size_t len = 0;
	uint32_t attr;
	int err = efivar_read(nv->dir, "BootOrder", &attr, &data, &len);

	if (err && err != AS_ENOENT) {
		t_error("nvram.read", "BootOrder cannot be read from %s: %s; nothing was written",
			nv->dir, err == AS_EIO ? strerror(errno) : as_strerror(err));
		return EXIT_ERRORS;
	}
	nv->nold = 0;
	for (size_t i = 0; !err && i + 1 < len && nv->nold < ARRAY_SIZE(nv->old_order); i += 2)
		nv->old_order[nv->nold++] = le16_load(data + i);
	free(data);
	nv->order[0] = nv->id;
	nv->norder = 1;
	for (unsigned i = 0; i < nv->nold && nv->norder < ARRAY_SIZE(nv->order); i++)
		if (nv->old_order[i] != nv->id)
			nv->order[nv->norder++] = nv->old_order[i];
	nv->write_order = !(nv->nold == nv->norder && nv->old_order[0] == nv->id);
	return 0;
}

/* The Boot#### entry for the loader at path on the boot partition. Returns 0 or an exit code. */
static int plan_entry(struct txn *t, const char *path)
{
	struct nvram_plan *nv = &t->nv;
	const struct part_info *bp = &t->di.parts[t->di.esp];
	struct loadopt_hd hd = { .number = bp->number, .start = bp->first, .size = bp->sectors,
				 .gpt = t->di.label == LABEL_GPT };

	if (hd.gpt)
		memcpy(hd.signature, bp->unique.b, 16);
	else
		le32_store(hd.signature, t->di.mbr.disk_sig);
	backslashed(path, nv->loader, sizeof nv->loader);
	nv->option_len = loadopt_build(nv->option, sizeof nv->option, ENTRY_DESC, &hd, nv->loader);
	if (!nv->option_len) {
		t_error("nvram.option", "the boot entry for %s does not fit a load option", nv->loader);
		return EXIT_ERRORS;
	}
	nv->write_option = true;
	int rc = pick_boot_id(nv, &hd);
	return rc ? rc : plan_order(nv);
}

static void order_text(const uint16_t *order, unsigned n, char *out, size_t cap)
{
	size_t at = 0;
	out[0] = 0;
	for (unsigned i = 0; i < n && at + 6 < cap; i++)
		at += (size_t)snprintf(out + at, cap - at, "%s%04X", i ? "," : "", order[i]);
	if (!n)
		snprintf(out, cap, "none");
}

static void nvram_print(const struct txn *t)
{
	const struct nvram_plan *nv = &t->nv;
	char now[1400], then[1400];
	if (!nv->active)
		return;
	order_text(nv->old_order, nv->nold, now, sizeof now);
	order_text(nv->order, nv->norder, then, sizeof then);
	printf("would %s the firmware boot entry Boot%04X (\"%s\", %s on partition %u) in %s\n",
	       nv->write_option ? "write" : "keep", nv->id, ENTRY_DESC, nv->loader, t->esp.number,
	       nv->dir);
	printf("would %s BootOrder %s (now %s)\n", nv->write_order ? "set" : "keep", then, now);
}

static int nvram_apply(struct txn *t)
{
	struct nvram_plan *nv = &t->nv;
	char name[16], now[1400], then[1400];
	uint8_t order[2 * ARRAY_SIZE(nv->order)];

	if (!nv->active)
		return 0;
	snprintf(name, sizeof name, "Boot%04X", nv->id);
	for (unsigned i = 0; i < nv->norder; i++)
		le16_store(order + 2 * i, nv->order[i]);
	if ((nv->write_option &&
	     efivar_write(nv->dir, name, EFIVAR_NV_BS_RT, nv->option, nv->option_len)) ||
	    (nv->write_order &&
	     efivar_write(nv->dir, "BootOrder", EFIVAR_NV_BS_RT, order, 2 * nv->norder))) {
		t_error("nvram.write",
			"the files are on the disk, but the firmware boot entry could not be written "
			"to %s: %s; add it by hand: efibootmgr --create --disk %s --part %u --loader "
			"'%s' --label %s", nv->dir, strerror(errno), t->h->path, t->esp.number,
			nv->loader, ENTRY_DESC);
		return EXIT_ERRORS;
	}
	order_text(nv->old_order, nv->nold, now, sizeof now);
	order_text(nv->order, nv->norder, then, sizeof then);
	txn_summary(t, "firmware boot entry Boot%04X \"%s\" starts %s on partition %u%s", nv->id,
		    ENTRY_DESC, nv->loader, t->esp.number, nv->write_option ? "" : " (unchanged)");
	txn_summary(t, "BootOrder %s%s%s%s", then, nv->write_order ? " (was " : " (unchanged)",
		    nv->write_order ? now : "", nv->write_order ? ")" : "");
	return 0;
}

/* The loader signed with --sign-key, in a temporary copy (t->signed_loader). Returns 0 or an
 * exit code; *loader the file to install. */
static int sign_loader(struct txn *t, const struct stages *s, const char **loader, char *signer,
		       size_t cap)
{
	*loader = s->efi_path;
	signer[0] = 0;
	if (!t->sign.key)
		return 0;
	int rc = loader_sign(s->efi_path, &t->sign, t->signed_loader, sizeof t->signed_loader);
	if (rc) {
		t->signed_loader[0] = 0;
		return rc;
	}
	*loader = t->signed_loader;
	snprintf(signer, cap, ", signed with %s", t->sign.cert);
	return 0;
}

/* Beside another system: the loader in \EFI\anysector\, the fallback path only where it is free
 * or anysector's (or --force), and the firmware boot entry. Returns 0 or an exit code. */
static int install_beside(struct txn *t, const struct efi_set *own, const struct efi_set *fb,
			  const char *signer)
{
	char shown[FAT_PATH_MAX + 32], what[600];
	int rc, k;

	if ((rc = refuse_foreign_set(t, own)) || (rc = put_set(t, own, OWN_DIR, signer)))
		return rc;
	if ((k = first_foreign(t, fb)) < 0 || t->force) {
		if ((rc = refuse_foreign_set(t, fb)) || (rc = put_set(t, fb, FALLBACK_DIR, signer)))
			return rc;
	} else {
		enum own_state st = owned_state(&t->own, &t->esp, fb->dst[k]);
		backslashed(fb->dst[k], shown, sizeof shown);
		owned_describe(&t->esp, fb->dst[k], what, sizeof what);
		txn_summary(t, "kept %s (%s): %s, so the firmware's fallback path stays as it is",
			    shown, what[0] ? what : "a file", owned_why_not(st));
		if (!t->nv.active)
			t_warn("install.no_firmware_path",
			       "no firmware path starts anysector yet: %s is not anysector's and no "
			       "boot entry is written (%s); add one on the machine that boots this "
			       "disk: efibootmgr --create --disk DISK --part %u --loader '%s%s' "
			       "--label anysector", shown,
			       t->no_nvram ? "--no-nvram" : "this system has no UEFI firmware that "
			       "boots the target", t->esp.number, "\\EFI\\anysector\\",
			       strrchr(own->dst[0], '/') + 1);
	}
	return t->nv.active ? plan_entry(t, own->dst[0]) : 0;
}

/* --lock-config: the loaders just put are locked to anysector.cfg as it is. Without it, a lock
 * the disk had goes with the loaders it replaces: said, since the owner may not mean it. */
static int install_lock(struct txn *t)
{
	if (t->lock_config) {
		t->relock = true;
		return txn_relock(t);
	}
	if (t->lock_before.locked)
		t_warn("install.unlocks", "the loader on partition %u was locked to %s; the one "
		       "installed now is not (give --lock-config with --sign-key and --sign-cert to "
		       "lock it again)", t->esp.number, CFG_FILE_NAME);
	return 0;
}

int txn_install_efi(struct txn *t, const struct stages *s)
{
	const char *loader;
	char signer[300], mm[4200] = "";
	struct efi_set own, fb;
	int rc;

	if ((rc = sign_loader(t, s, &loader, signer, sizeof signer)))
		return rc;
	if (t->sign.shim)
		find_mok_manager(t->sign.shim, mm, sizeof mm);
	efi_set(&fb, FALLBACK_DIR, "BOOTX64.EFI", loader, &t->sign, mm);
	efi_set(&own, OWN_DIR, NULL, loader, &t->sign, mm);
	for (unsigned i = 0; i < fb.n && !t->esp.open; i++) /* both sets at most */
		txn_expect(t, fb.src[i]);
	for (unsigned i = 0; i < own.n && !t->esp.open; i++)
		txn_expect(t, own.src[i]);
	if ((rc = txn_open_esp(t)) || (rc = txn_lock_scan(t)))
		return rc;
	const char *dir = t->no_nvram ? NULL : efivars_dir();
	if (dir && efivars_sees(t->h)) {
		t->nv.active = true;
		t->nv.dir = dir;
		t->print_more = nvram_print;
		t->after_writes = nvram_apply;
	}
	if (t->uefi_only || t->nv.active)
		rc = install_beside(t, &own, &fb, signer);
	else if (!(rc = refuse_foreign_set(t, &fb)))
		rc = put_set(t, &fb, FALLBACK_DIR, signer);
	return rc ? rc : install_lock(t);
}
