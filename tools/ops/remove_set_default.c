/* SPDX-License-Identifier: BSD-2-Clause */
/* remove and set-default: changes to the boot menu alone, as write plans like add's (the boot
 * partition copied, changed with mtools, the differing sectors written in their safe order). */
#include "tools/ops/remove_set_default.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/bootstate.h"
#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"
#include "tools/esp/cfgedit.h"
#include "tools/ops/lockcfg.h"
#include "tools/ops/menu_edit.h"
#include "tools/ops/state_edit.h"

/* The menu entry called name, or a refusal naming what there is. Returns the index or -1. */
static int find_entry(struct txn *t, const char *name)
{
	int i = boot_menu_find(t->menu, name);
	if (i < 0)
		t_error("refuse.no_entry",
			"the boot menu on partition %u has no entry named '%s' (see 'anysector list'); "
			"nothing was changed", t->esp.number, name);
	return i;
}

/* anysector.cfg's text now, or the head of a new one (no timeout: loader.conf's may count). */
static char *cfg_text_now(struct txn *t)
{
	if (t->menu->cfg_text)
		return xstrdup(t->menu->cfg_text);
	return xstrdup("# anysector.cfg: the boot menu (see anysector(8)); written by 'anysector'\n");
}

/* The names entry i has in the boot state block (common/bootcount.c: its name, for a one-shot
 * and an uncounted boot; a file's name, for its tries and a counted boot), each unless another
 * entry of the menu has it too. */
static void state_names(struct txn *t, int i)
{
	const struct cfg *c = &t->menu->cfg;
	const char *mine[2] = { c->entries[i].name, c->entries[i].bls ? c->entries[i].file : "" };

	t->nremoved = 0;
	for (unsigned n = 0; n < 2; n++) {
		bool shared = !mine[n][0];
		for (unsigned j = 0; j < c->nentries && !shared; j++)
			shared = (int)j != i && (!strcasecmp(c->entries[j].name, mine[n]) ||
						 (c->entries[j].bls &&
						  !strcasecmp(c->entries[j].file, mine[n])));
		if (!shared)
			snprintf(t->removed[t->nremoved++], sizeof t->removed[0], "%s", mine[n]);
	}
}

static int remove_pass(struct txn *t, const void *arg)
{
	const char *name = arg;
	int rc, i;

	if ((rc = txn_open_esp(t)) || (rc = txn_lock_for_change(t)) || (rc = txn_load_menu(t)))
		return rc;
	if ((i = find_entry(t, name)) < 0)
		return EXIT_REFUSED;
	const struct boot_menu *m = t->menu;
	const struct cfg_entry *e = &m->cfg.entries[i];
	if (m->cfg.nentries == 1 && !t->force) {
		t_error("refuse.last_entry",
			"'%s' is the only entry of the boot menu: without it the loaders have nothing "
			"to boot; add another first, or use --force", e->name);
		return EXIT_REFUSED;
	}
	t->allow_empty_menu = m->cfg.nentries == 1;
	state_names(t, i);
	char *text = cfg_text_now(t), *cur;
	bool cfg_changed = false;
	if (!m->src[i].bls) {
		cur = cfg_text_remove_entry(text, e->name);
		free(text);
		text = cur;
		cfg_changed = true;
	} else if ((rc = esp_delete(&t->esp, m->src[i].path))) {
		free(text);
		return rc;
	}
	/* a default naming it goes too: the loaders then take the first entry */
	if (m->cfg.default_line && !strcasecmp(m->cfg.default_name, e->name)) {
		cur = cfg_text_set_key(text, "default", NULL);
		free(text);
		text = cur;
		cfg_changed = true;
		txn_summary(t, "'%s' was the default in %s: that line is gone", e->name,
			    CFG_FILE_NAME);
	}
	txn_summary(t, "entry '%s' removed from %s", e->name, m->src[i].path);
	rc = cfg_changed ? txn_store_config(t, text) : txn_check_menu(t);
	free(text);
	if (rc)
		return rc;
	/* an efi entry's file on another partition, or a chainload target, is not ours to delete */
	const char *files[1 + CFG_MAX_INITRDS];
	rc = txn_drop_unused(t, files, entry_boot_files(e, files));
	return rc ? rc : txn_relock(t);
}

static int set_default_pass(struct txn *t, const void *arg)
{
	const char *name = arg;
	int rc, i;

	if ((rc = txn_open_esp(t)) || (rc = txn_lock_for_change(t)) || (rc = txn_load_menu(t)))
		return rc;
	if ((i = find_entry(t, name)) < 0)
		return EXIT_REFUSED;
	const char *exact = t->menu->cfg.entries[i].name;
	char *text = cfg_text_now(t);
	char *cur = cfg_text_set_key(text, "default", exact);
	free(text);
	txn_summary(t, "default '%s' in %s on partition %u", exact, CFG_FILE_NAME, t->esp.number);
	rc = txn_store_config(t, cur);
	free(cur);
	return rc ? rc : txn_relock(t);
}

/* A locked menu's change is made in two passes (tools/ops/lockcfg.h txn_lock_run). */
int txn_remove(struct txn *t, const char *name)
{
	int rc = txn_lock_run(t, remove_pass, name);
	const char *names[2] = { t->removed[0], t->removed[1] };

	return rc ? rc : txn_state_removed(t, names, t->nremoved);
}

int txn_set_default(struct txn *t, const char *name)
{
	return txn_lock_run(t, set_default_pass, name);
}

int txn_set_oneshot(struct txn *t, const char *name)
{
	struct bstate_disk *d;
	const char *why;
	int rc, i;

	if ((rc = txn_open_esp(t)) || (rc = txn_load_menu(t)))
		return rc;
	if ((i = find_entry(t, name)) < 0)
		return EXIT_REFUSED;
	const char *exact = t->menu->cfg.entries[i].name;
	d = xcalloc(1, sizeof *d);
	if ((rc = bstate_disk_read(&t->h->dev, d, &why)) || !d->offset) {
		if (rc)
			t_error("refuse.no_state", "%s: the boot state block cannot be read: %s; "
				"nothing was changed", t->h->path, why[0] ? why : as_strerror(rc));
		else
			t_error("refuse.no_state",
				"%s has no boot state block (see 'anysector check'), where a one-shot "
				"boot is kept; under UEFI 'systemctl reboot --boot-loader-entry=%s' "
				"asks BOOTX64.EFI through an EFI variable instead; nothing was changed",
				t->h->path, exact);
		free(d);
		return rc == AS_EIO ? EXIT_ERRORS : EXIT_REFUSED;
	}
	if (bstate_set(bstate_begin(&d->io), BSTATE_ONESHOT, exact, 0, 0)) {
		t_error("refuse.state_full", "the boot state block has no room for the one-shot "
			"'%s'; nothing was changed", exact);
		free(d);
		return EXIT_REFUSED;
	}
	unsigned k = bstate_seal_next(&d->io);
	char what[400];
	snprintf(what, sizeof what, "boot state block, copy %u (sequence %llu): one-shot '%s'", k,
		 (unsigned long long)bstate_seq(d->io.copy[k]), exact);
	plan_add(&t->pre, d->io.lba + (uint64_t)k * d->io.sectors, d->io.sectors, d->io.copy[k],
		 what);
	txn_summary(t, "'%s' boots next time only (one-shot in the boot state block at byte %llu)",
		    exact, (unsigned long long)d->offset);
	free(d);
	return 0;
}
