/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/bootcount.h"

#include "common/bls.h"
#include "common/fmt.h"
#include "common/str.h"
#include "common/uki.h"

/* Whether the loader counts e's try in the state block: a /loader/entries file with a counter,
 * under BIOS (BOOTX64.EFI renames the file instead, as systemd-boot does). */
static bool counted_here(const struct cfg_entry *e, unsigned fw)
{
	return fw == BSTATE_FW_BIOS && e->bls && e->tries_left >= 0;
}

static uint8_t u8_of(int32_t v)
{
	return v > 255 ? 255 : (uint8_t)v;
}

/* stage2: each counted file's tries as the block has them, then the specification's order
 * again (an entry they leave without tries sorts last). */
static void apply_tries(struct cfg *c, uint8_t *live)
{
	struct cfg_entry *e = c->entries, t;
	bool changed = false;
	uint8_t *r;

	for (unsigned i = c->first_bls; i < c->nentries; i++)
		if (e[i].bls && e[i].tries_left >= 0 &&
		    (r = bstate_find(live, BSTATE_TRIES, e[i].file))) {
			e[i].tries_left = r[2];
			e[i].tries_done = r[3];
			changed = true;
		}
	for (unsigned i = c->first_bls + 1; changed && i < c->nentries; i++)
		for (unsigned j = i; j > c->first_bls && bls_compare(&e[j - 1], &e[j]) > 0; j--) {
			t = e[j];
			e[j] = e[j - 1];
			e[j - 1] = t;
		}
}

int bootcount_apply(struct cfg *c, struct bstate_io *s, unsigned fw)
{
	char name[BSTATE_NAME_MAX + 1];
	uint8_t *r;
	int i;

	if (s->live < 0)
		return -1;
	if (fw == BSTATE_FW_BIOS)
		apply_tries(c, s->copy[s->live]);
	if (!(r = bstate_find(s->copy[s->live], BSTATE_ONESHOT, 0)) ||
	    !bstate_name(r, name, sizeof name) || (i = cfg_find(c, name)) < 0)
		return -1;
	str_copy(c->default_name, sizeof c->default_name, c->entries[i].name);
	return i;
}

/* TRIES records of files the menu does not have (renamed by bless, removed) go. */
static void prune(const struct cfg *c, uint8_t *copy)
{
	char name[BSTATE_NAME_MAX + 1];

	for (uint8_t *r = bstate_next(copy, 0); r;) {
		bool known = r[0] != BSTATE_TRIES;
		bstate_name(r, name, sizeof name);
		for (unsigned k = c->first_bls; !known && k < c->nentries; k++)
			known = c->entries[k].tries_left >= 0 && !str_casecmp(c->entries[k].file, name);
		if (known) {
			r = bstate_next(copy, r);
		} else {
			bstate_remove(copy, r);   /* the next record moved up to r */
			r = *r != BSTATE_END ? r : 0;
		}
	}
}

int bootcount_before(const struct cfg *c, unsigned i, struct bstate_io *s, unsigned fw)
{
	const struct cfg_entry *e = &c->entries[i];
	uint8_t *live = s->live < 0 ? 0 : s->copy[s->live], *r;
	bool counted = counted_here(e, fw), oneshot = live && bstate_find(live, BSTATE_ONESHOT, 0);
	/* a counted boot recorded as the last one is no longer it: bless must not take it */
	bool stale = live && (r = bstate_find(live, BSTATE_BOOTED, 0)) &&
		     (r[3] & BSTATE_BOOTED_COUNTED);

	if (!s->disk || (!counted && !oneshot && !stale))
		return 0;
	uint8_t *next = bstate_begin(s);
	if ((r = bstate_find(next, BSTATE_ONESHOT, 0)))
		bstate_remove(next, r);
	if ((r = bstate_find(next, BSTATE_BOOTED, 0)))
		bstate_remove(next, r);
	prune(c, next);
	if (counted)
		bstate_set(next, BSTATE_TRIES, e->file, u8_of(e->tries_left ? e->tries_left - 1 : 0),
			   u8_of(e->tries_done + 1));
	if (counted || oneshot)
		bstate_set(next, BSTATE_BOOTED, counted ? e->file : e->name, (uint8_t)fw,
			   (counted ? BSTATE_BOOTED_COUNTED : 0) | (oneshot ? BSTATE_BOOTED_ONESHOT : 0));
	return bstate_commit(s);
}

bool bootcount_bls_next(const struct cfg_entry *e, char *out, size_t cap)
{
	/* ".conf", or a Type #2 entry's ".efi" (common/uki.h), any case */
	size_t id = str_len(e->name), n = str_len(e->file);
	size_t sl = e->kind == CFG_KIND_UKI ? sizeof UKI_SUFFIX - 1 : sizeof BLS_SUFFIX - 1;

	if (!e->bls || e->tries_left < 0 || n < id + sl)
		return false;
	int32_t left = e->tries_left ? e->tries_left - 1 : 0;
	int32_t done = e->tries_done < 999999999 ? e->tries_done + 1 : 999999999;
	int k = fmt_snprintf(out, cap, "%.*s+%d-%d%s", (int)id, e->file, (int)left, (int)done,
			     e->file + n - sl);
	return k > 0 && (size_t)k < cap;
}
