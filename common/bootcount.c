/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/bootcount.h"

#include "common/bls.h"
#include "common/fmt.h"
#include "common/str.h"
#include "common/uki.h"

/* Whether the loader counts e's try in the state block: an anysector.cfg entry with a "tries"
 * line, under both firmwares; a file with a boot counter under BIOS (BOOTX64.EFI renames the
 * file instead, as systemd-boot does). */
static bool counted_here(const struct cfg_entry *e, unsigned fw)
{
	return e->tries_left >= 0 && (!e->bls || fw == BSTATE_FW_BIOS);
}

/* The name of e's TRIES record: a file's name, an anysector.cfg entry's name. */
static const char *rec_name(const struct cfg_entry *e)
{
	return e->bls ? e->file : e->name;
}

static void swap(struct cfg_entry *a, struct cfg_entry *b)
{
	struct cfg_entry t = *a;
	*a = *b;
	*b = t;
}

static uint8_t u8_of(int32_t v)
{
	return v > 255 ? 255 : (uint8_t)v;
}

/* Each entry counted here gets the tries the block holds for it; then the order again: files
 * by the specification (one without tries sorts last), anysector.cfg's failed entries after its
 * others; and an owner's default that failed is no default (the default rule picks another). */
static void apply_tries(struct cfg *c, uint8_t *live, unsigned fw)
{
	struct cfg_entry *e = c->entries;
	bool changed = false;
	uint8_t *r;

	for (unsigned i = 0; i < c->nentries; i++)
		if (counted_here(&e[i], fw) && (r = bstate_find(live, BSTATE_TRIES, rec_name(&e[i])))) {
			e[i].tries_left = r[2];
			e[i].tries_done = r[3];
			changed |= e[i].bls;
		}
	for (unsigned i = c->first_bls + 1; changed && i < c->nentries; i++)
		for (unsigned j = i; j > c->first_bls && bls_compare(&e[j - 1], &e[j]) > 0; j--)
			swap(&e[j - 1], &e[j]);
	unsigned ncfg = 0;   /* anysector.cfg's entries come first (first_bls is 0 without files) */
	while (ncfg < c->nentries && !e[ncfg].bls)
		ncfg++;
	for (unsigned i = 1; i < ncfg; i++)
		for (unsigned j = i; j > 0 && !e[j - 1].tries_left && e[j].tries_left; j--)
			swap(&e[j - 1], &e[j]);
	int d = c->default_name[0] ? cfg_find(c, c->default_name) : -1;
	if (d >= 0 && !e[d].bls && !e[d].tries_left)
		c->default_name[0] = 0;
}

int bootcount_apply(struct cfg *c, struct bstate_io *s, unsigned fw)
{
	char name[BSTATE_NAME_MAX + 1];
	uint8_t *r;
	int i;

	if (s->live < 0)
		return -1;
	apply_tries(c, s->copy[s->live], fw);
	if (!(r = bstate_find(s->copy[s->live], BSTATE_ONESHOT, 0)) ||
	    !bstate_name(r, name, sizeof name) || (i = cfg_find(c, name)) < 0)
		return -1;
	str_copy(c->default_name, sizeof c->default_name, c->entries[i].name);
	return i;
}

/* TRIES records of entries the menu does not count (files renamed by bless or removed, a
 * "tries" line gone) go. */
static void prune(const struct cfg *c, uint8_t *copy)
{
	char name[BSTATE_NAME_MAX + 1];

	for (uint8_t *r = bstate_next(copy, 0); r;) {
		bool known = r[0] != BSTATE_TRIES;
		bstate_name(r, name, sizeof name);
		for (unsigned k = 0; !known && k < c->nentries; k++)
			known = c->entries[k].tries_left >= 0 &&
				!str_casecmp(rec_name(&c->entries[k]), name);
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
		bstate_set(next, BSTATE_TRIES, rec_name(e), u8_of(e->tries_left ? e->tries_left - 1 : 0),
			   u8_of(e->tries_done + 1));
	if (counted || oneshot)
		bstate_set(next, BSTATE_BOOTED, counted ? rec_name(e) : e->name, (uint8_t)fw,
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
