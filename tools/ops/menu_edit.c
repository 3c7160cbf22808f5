/* SPDX-License-Identifier: BSD-2-Clause */
/* What the menu changes (add, remove, set-default) share: the menu read from the ESP, the new
 * anysector.cfg checked as the loaders read it, the files no entry uses any more. */
#include "tools/ops/menu_edit.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/fat_path.h"
#include "common/uki.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"

/* The anysector.cfg add starts from: the one on the ESP, which must be valid, or a new one.
 * Returns 0 or an exit code. */
int txn_load_menu(struct txn *t)
{
	struct report q;
	int rc;

	if (t->menu)
		return 0;
	t->menu = xcalloc(1, sizeof *t->menu);
	report_init(&q, false);
	rc = boot_menu_load_as(&t->esp, !(t->relock || t->lock_config), t->menu, &q);
	const struct report_item *bad = report_first(&q, DIAG_ERROR);
	if (rc == AS_ECORRUPT || rc == AS_ETOOBIG || report_has(&q, "cfg.default")) {
		for (unsigned i = 0; i < q.n && bad && strncmp(bad->code, "cfg.", 4); i++)
			if (q.items[i].level == DIAG_ERROR && !strncmp(q.items[i].code, "cfg.", 4))
				bad = &q.items[i];
		t_error("add.config_invalid",
			"the %s on the ESP is not valid (%s); fix it before changing the menu",
			CFG_FILE_NAME, bad ? bad->msg : as_strerror(rc));
		rc = EXIT_ERRORS;
	} else if (rc) {
		t_error("add.config_read", "reading the boot menu from the ESP failed: %s",
			bad ? bad->msg : as_strerror(rc));
		rc = EXIT_ERRORS;
	} else {
		/* the loaders leave broken /loader/entries files out: say so, change nothing */
		for (unsigned i = 0; i < q.n; i++)
			if (q.items[i].level >= DIAG_WARN && strcmp(q.items[i].code, "cfg.no_entry"))
				report_add(g_report, DIAG_WARN, q.items[i].code, q.items[i].msg);
	}
	report_free(&q);
	return rc;
}

/* The new menu m on a disk whose stage2 is its legacy-gap build (the one on the disk, or the
 * one this change installs: mkimage): what that stage2 makes of its unified kernel images under
 * BIOS, said as a warning (they still start under UEFI). */
static void gap_warn(struct txn *t, const struct boot_menu *m)
{
	struct bstate_disk *st = xcalloc(1, sizeof *st);
	const char *why;
	struct report q;

	report_init(&q, false);
	if (t->installed ? t->installed_gap
			 : !bstate_disk_read(&t->h->dev, st, &why) && st->stage2_gap)
		boot_menu_gap(&t->esp, m, &q);
	for (unsigned i = 0; i < q.n; i++)
		report_add(g_report, DIAG_WARN, q.items[i].code, q.items[i].msg);
	report_free(&q);
	free(st);
}

int txn_check_menu(struct txn *t)
{
	struct boot_menu *m = xcalloc(1, sizeof *m);
	struct report q;
	int rc = 0;

	report_init(&q, false);
	int err = boot_menu_load_as(&t->esp, !(t->relock || t->lock_config), m, &q);
	if (!err && t->allow_empty_menu && !m->cfg.nentries)
		m->valid = true;
	if (err || !m->valid) {
		const struct report_item *it = NULL;
		for (unsigned i = 0; i < q.n && !it; i++)
			if (q.items[i].level == DIAG_ERROR && !strncmp(q.items[i].code, "cfg.", 4))
				it = &q.items[i];
		t_error("refuse.config_result",
			"the boot menu would not be valid (%s); nothing was changed",
			it ? it->msg : "?");
		rc = EXIT_REFUSED;
	} else {
		gap_warn(t, m);
	}
	report_free(&q);
	boot_menu_free(m);
	free(m);
	return rc;
}

void txn_warn_gap_menu(struct txn *t)
{
	struct boot_menu *m = xcalloc(1, sizeof *m);
	struct report q;

	/* a disk without a menu yet (mkimage, a first install) has nothing to warn about */
	report_init(&q, false);
	if (t->installed_gap && !boot_menu_load_as(&t->esp, !(t->relock || t->lock_config), m, &q) &&
	    m->valid && m->cfg.nentries)
		gap_warn(t, m);
	report_free(&q);
	boot_menu_free(m);
	free(m);
}

/* Writes text to a new temporary file named in path. Returns 0 or AS_EIO (errno says why). */
static int write_temp(const char *text, char *path, size_t cap)
{
	int fd;
	if (temp_create("cfg", path, cap, &fd))
		return AS_EIO;
	int rc = pwrite_full(fd, text, strlen(text), 0);
	close(fd);
	return rc;
}

/* The new anysector.cfg must parse and fit what the loaders read, then goes onto the ESP copy.
 * Returns 0 or an exit code. */
int txn_store_config(struct txn *t, const char *text)
{
	struct cfg *cfg;
	struct report q;
	int rc = 0;

	if (strlen(text) > CFG_FILE_MAX_BYTES) {
		t_error("refuse.config_size",
			"the new %s would be %zu bytes, more than the %u the loaders read; nothing "
			"was changed", CFG_FILE_NAME, strlen(text), CFG_FILE_MAX_BYTES);
		return EXIT_REFUSED;
	}
	cfg = xcalloc(1, sizeof *cfg);
	report_init(&q, false);
	if (cfg_parse_text(text, strlen(text), cfg, &q.diag)) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		t_error("refuse.config_result",
			"the new %s would not be valid (%s); nothing was changed", CFG_FILE_NAME,
			it ? it->msg : "?");
		rc = EXIT_REFUSED;
	}
	report_free(&q);
	free(cfg);
	if (rc)
		return rc;
	char tmp[4096];
	if (write_temp(text, tmp, sizeof tmp)) {
		t_error("add.temp", "cannot write a temporary file: %s", strerror(errno));
		return EXIT_ERRORS;
	}
	rc = esp_put(&t->esp, tmp, "/" CFG_FILE_NAME);
	temp_remove(tmp);
	/* with /loader/entries the whole menu decides (a default may name one of those) */
	return rc ? rc : txn_check_menu(t);
}

/* Whether an entry of the menu uses the file. A Type #2 entry is its file (/EFI/Linux/x.efi):
 * the file of a removed uki entry of anysector.cfg shows as one, and does not keep itself. */
static const char *user_of(const struct boot_menu *m, const char *file)
{
	for (unsigned i = 0; i < m->cfg.nentries; i++) {
		if (m->src[i].bls && fat_path_eq(m->src[i].path, file))
			continue;
		const char *files[1 + CFG_MAX_INITRDS];
		unsigned n = entry_boot_files(&m->cfg.entries[i], files);
		for (unsigned k = 0; k < n; k++)
			if (fat_path_eq(files[k], file))
				return m->cfg.entries[i].name;
	}
	return NULL;
}

struct dir_state {
	unsigned n;
};

static int count_one(void *ctx, const char *name, bool is_dir, uint64_t size)
{
	(void)name;
	(void)is_dir;
	(void)size;
	((struct dir_state *)ctx)->n++;
	return 0;
}

/* Removes dir and then its parents while they are empty, up to (not) the root; /loader and
 * what is under it stay (kernel-install looks for /loader/entries), and so does /EFI/Linux
 * (the Boot Loader Specification's place for unified kernel images). */
static int drop_empty_dirs(struct txn *t, const char *dir)
{
	char d[FAT_PATH_MAX + 32];
	snprintf(d, sizeof d, "%s", dir);
	for (;;) {
		char *slash = strrchr(d, '/');
		if (!slash || !slash[1] || !strncasecmp(d, "/loader", 7) || fat_path_eq(d, "/EFI") ||
		    fat_path_eq(d, UKI_DIR))
			return 0;
		struct dir_state st = { 0 };
		if (esp_list(&t->esp, d, count_one, &st) || st.n)
			return 0;
		int rc = esp_rmdir(&t->esp, d);
		if (rc)
			return rc;
		txn_summary(t, "removed the empty directory %s", d);
		*slash = 0;
	}
}

int txn_drop_unused(struct txn *t, const char *const *files, unsigned n)
{
	struct boot_menu *now = xcalloc(1, sizeof *now);
	struct report q;
	int rc = 0;

	report_init(&q, false);
	if (n && boot_menu_load(&t->esp, now, &q)) {
		t_error("esp.menu", "the boot menu cannot be read again after the change");
		rc = EXIT_ERRORS;
	}
	report_free(&q);
	for (unsigned i = 0; i < n && !rc; i++) {
		bool dup = false, is_dir = true;
		for (unsigned k = 0; k < i; k++)
			dup |= fat_path_eq(files[k], files[i]);
		if (dup || !esp_exists(&t->esp, files[i], &is_dir) || is_dir)
			continue;
		const char *user = user_of(now, files[i]);
		if (user) {
			bool own = false; /* add --replace: the new entry of that name */
			for (unsigned k = 0; k < t->nreplaced; k++)
				own |= !strcasecmp(t->replaced[k], user);
			if (!own)
				txn_summary(t, "kept %s: entry '%s' uses it", files[i], user);
			continue;
		}
		enum own_state st;
		if (txn_foreign(t, files[i], &st)) {
			txn_summary(t, "kept %s: %s", files[i], owned_why_not(st));
			continue;
		}
		if ((rc = esp_delete(&t->esp, files[i])))
			break;
		owned_forget(&t->own, files[i]);
		txn_summary(t, "deleted %s", files[i]);
		char dir[FAT_PATH_MAX + 32];
		snprintf(dir, sizeof dir, "%s", files[i]);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		rc = drop_empty_dirs(t, dir);
	}
	boot_menu_free(now);
	free(now);
	return rc;
}
