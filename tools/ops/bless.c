/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/ops/bless.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/bls.h"
#include "common/bootstate.h"
#include "common/uki.h"
#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"
#include "tools/dev/efivars.h"
#include "tools/esp/cfgedit.h"
#include "tools/esp/esp_read.h"
#include "tools/esp/espfs.h"
#include "tools/ops/lockcfg.h"
#include "tools/ops/menu_edit.h"

/* The directory of a counted file: a Type #2 entry's in /EFI/Linux (NAME+LEFT.efi), else one
 * of /loader/entries (NAME+LEFT.conf). */
static const char *counted_dir(const char *file)
{
	size_t n = strlen(file), sl = sizeof UKI_SUFFIX - 1;
	return n > sl && !strcasecmp(file + n - sl, UKI_SUFFIX) ? UKI_DIR : BLS_ENTRIES_DIR;
}

/* The file LoaderBootCountPath names ("\loader\entries\x+2-1.conf", "\EFI\Linux\u+1-1.efi"),
 * as its name in its directory, into out; false when the variable is not there (not a counted
 * UEFI boot). */
static bool uefi_counted(char *out, size_t cap)
{
	char path[512];

	if (!efivar_loader_str(efivars_dir(), "LoaderBootCountPath", path, sizeof path))
		return false;
	for (char *p = path; *p; p++)
		if (*p == '\\')
			*p = '/';
	/* the file's suffix decides its directory (rename_to_good): they must agree */
	const char *file = strrchr(path, '/');
	file = file ? file + 1 : path;
	const char *dir = counted_dir(file);
	size_t dl = strlen(dir);
	if ((size_t)(file - path) != dl + 1 || strncasecmp(path, dir, dl))
		file = NULL;
	if (!file || strlen(file) >= cap) {
		t_warn("bless.path", "LoaderBootCountPath names %s, not a file of %s or %s: left "
		       "alone", path, BLS_ENTRIES_DIR, UKI_DIR);
		return false;
	}
	memcpy(out, file, strlen(file) + 1);
	return true;
}

/* A counted /EFI/Linux file (a whole kernel) goes through esp_rename, which never holds it in
 * memory; a /loader/entries file is written anew under the new name and the old one deleted.
 * Returns 0 or an exit code. */
static int rename_file(struct txn *t, const char *from, const char *to, bool uki)
{
	char *text = NULL;
	size_t len;
	int rc;

	if (uki)
		return esp_rename(&t->esp, from, to);
	if ((rc = esp_read_file(&t->esp, from, &text, &len, NULL))) {
		t_error("bless.read", "%s cannot be read (%s); nothing was changed", from,
			as_strerror(rc));
		return EXIT_ERRORS;
	}
	if (!(rc = esp_put_text(&t->esp, text, to)))
		rc = esp_delete(&t->esp, from);
	free(text);
	return rc;
}

/* Renames file (a /loader/entries or /EFI/Linux file, counted_dir) to its name without the boot
 * counter on t's boot partition, keeping its suffix. */
static int rename_to_good(struct txn *t, const char *file)
{
	struct bls_entry *e = xcalloc(1, sizeof *e);
	char from[BLS_NAME_MAX + 32], to[BLS_NAME_MAX + 32];
	const char *dir = counted_dir(file);
	bool uki = !strcmp(dir, UKI_DIR);
	size_t sl = uki ? sizeof UKI_SUFFIX - 1 : sizeof BLS_SUFFIX - 1;
	int rc = 0;

	snprintf(from, sizeof from, "%s/%s", dir, file);
	if (!(uki ? bls_file_id(from, UKI_SUFFIX, e) : bls_name_check(from, e, NULL)) ||
	    e->tries_left < 0) {
		t_info("bless.none", "%s has no boot counter: nothing to mark", from);
		goto out;
	}
	snprintf(to, sizeof to, "%s/%s%s", dir, e->id, file + strlen(file) - sl);
	if (!esp_exists(&t->esp, from, NULL)) {
		t_info("bless.done", "%s is not there (marked good already?): nothing to do", from);
		goto out;
	}
	if (esp_exists(&t->esp, to, NULL)) {
		t_error("refuse.bless_target", "%s cannot become %s: that file exists; nothing was "
			"changed", from, to);
		rc = EXIT_REFUSED;
		goto out;
	}
	if (!(rc = rename_file(t, from, to, uki)))
		txn_summary(t, "%s is now %s: the boot counts as good", from, to);
out:
	free(e);
	return rc;
}

/* The counted BIOS boot the state block records: its file into file; its TRIES and BOOTED
 * records taken out of the next copy, which goes into t's plan after the boot partition's
 * change (t->post). That order makes a crash between the two harmless: the file renamed or the
 * tries line gone, no loader counts the entry, whatever records the block still holds for it
 * (common/bootcount.c counts an entry only where its name or line says so), and bless run again
 * finds the same counted boot and writes the block. The other order would leave the entry
 * counted again from the start, and the block with no counted boot for bless to find. False
 * when there is none. */
static bool bios_counted(struct txn *t, char *file, size_t cap)
{
	struct bstate_disk *d = xcalloc(1, sizeof *d);
	const char *why;
	uint8_t *r, *next;
	bool found = false;

	if (bstate_disk_read(&t->h->dev, d, &why) || !d->offset || d->io.live < 0 ||
	    !(r = bstate_find(d->io.copy[d->io.live], BSTATE_BOOTED, NULL)) ||
	    !(r[3] & BSTATE_BOOTED_COUNTED) || !bstate_name(r, file, (unsigned)cap))
		goto out;
	found = true;
	next = bstate_begin(&d->io);
	bstate_remove(next, bstate_find(next, BSTATE_BOOTED, NULL));
	if ((r = bstate_find(next, BSTATE_TRIES, file)))
		bstate_remove(next, r);
	unsigned k = bstate_seal_next(&d->io);
	char what[400];
	snprintf(what, sizeof what, "boot state block, copy %u (sequence %llu): '%s' good", k,
		 (unsigned long long)bstate_seq(d->io.copy[k]), file);
	plan_add(&t->post, d->io.lba + (uint64_t)k * d->io.sectors, d->io.sectors, d->io.copy[k],
		 what);
	txn_summary(t, "'%s' is no longer a counted boot in the boot state block (copy %u, "
		    "sequence %llu)", file, k, (unsigned long long)bstate_seq(d->io.copy[k]));
out:
	free(d);
	return found;
}

/* An anysector.cfg entry counted in the block: its "tries" line goes, as a file loses its
 * counter (the block's records went in bios_counted). */
static int cfg_to_good(struct txn *t, const char *name)
{
	int rc;
	char *text;

	if ((rc = txn_lock_for_change(t)))
		return rc;
	if (!(text = cfg_text_remove_entry_key(t->menu->cfg_text, name, "tries"))) {
		t_info("bless.done", "%s's entry '%s' has no tries line: nothing to do",
		       CFG_FILE_NAME, name);
		return 0;
	}
	txn_summary(t, "entry '%s' of %s has no tries line now: the boot counts as good", name,
		    CFG_FILE_NAME);
	rc = txn_store_config(t, text);
	free(text);
	return rc ? rc : txn_relock(t);
}

/* Whether name is an anysector.cfg entry of the menu (not a file's). */
static bool cfg_entry_named(struct txn *t, const char *name)
{
	const struct cfg *c = &t->menu->cfg;

	for (unsigned i = 0; t->menu->cfg_text && i < c->nentries; i++)
		if (!c->entries[i].bls && !strcasecmp(c->entries[i].name, name))
			return true;
	return false;
}

int txn_bless(struct txn *t)
{
	char file[BLS_NAME_MAX + 1];
	int rc;

	if ((rc = txn_open_esp(t)) || (rc = txn_load_menu(t)))
		return rc;
	if (uefi_counted(file, sizeof file))
		return rename_to_good(t, file);
	if (bios_counted(t, file, sizeof file))
		return cfg_entry_named(t, file) ? cfg_to_good(t, file) : rename_to_good(t, file);
	t_info("bless.none", "this boot was not counted (no LoaderBootCountPath, and the boot state "
	       "block records no counted boot): nothing to mark");
	return 0;
}
