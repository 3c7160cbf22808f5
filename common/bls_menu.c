/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu: anysector.cfg's entries, then the Boot Loader Specification's in its order
 * (common/bls.h). Both loaders and the installer's list build it with these functions, so they
 * show the same entries in the same order with the same default.
 *
 * The /loader/entries entries are kept sorted as they come; each one's strings are one block of
 * the cfg's text arena, so the entry that sorts last can be taken out again (its block closed
 * up) when a better one needs its place. */
#include "common/bls.h"

#include <stddef.h>

#include "common/bits.h"
#include "common/features.h"
#include "common/mem.h"
#include "common/str.h"
#include "common/uki.h"

void bls_menu_begin(struct cfg *c)
{
	c->first_bls = c->nentries;
	c->text_cfg = c->text_used;
}

/* Where each string of a menu entry (cfg_entry.str[]) is in a parsed file: its initrds past
 * the ones given are "" (bls_parse cleared them). */
#define B(m) (uint16_t)offsetof(struct bls_entry, m)
static const uint16_t strings[] = { B(id), B(title), B(kernel), B(initrd[0]), B(initrd[1]),
				    B(initrd[2]), B(initrd[3]), B(cmdline), B(file), B(sort_key),
				    B(machine_id), B(version) };

/* e as a menu entry whose strings are still e's own. */
static void view(struct cfg_entry *v, const struct bls_entry *e)
{
	cfg_entry_clear(v);
	for (unsigned k = 0; k < ARRAY_SIZE(strings); k++)
		v->str[k] = (const char *)e + strings[k];
	v->ninitrd = (uint8_t)e->ninitrd;
	v->tries_left = e->tries_left;
	v->tries_done = e->tries_done;
	if (FEATURE_UKI)   /* (the legacy-gap stage2 has no Type #2 entries) */
		v->kind = e->kind;
	v->bls = 1;
}

static void left_out(struct diag *d, unsigned kind, const char *file)
{
#if !FEATURE_NOTICES
	/* the gap build leaves naming them to check and list (its size) */
	(void)d;
	(void)kind;
	(void)file;
#else
	diag_warn(d, "bls.left_out", "%s/%s left out: the menu is full of entries sorting before "
		  "it", kind == CFG_KIND_UKI ? UKI_DIR : BLS_ENTRIES_DIR, file);
#endif
}
/* Takes out entry j, a /loader/entries one: its block of the arena is closed up, and the
 * strings after it and the entries after it move down. */
static void drop(struct cfg *c, unsigned j, struct diag *d)
{
	struct cfg_entry *x = &c->entries[j];
	char *b = (char *)(uintptr_t)x->name;    /* its block starts with its name */
	uint16_t size = x->text_size;
	char *from = b + size;

	left_out(d, x->kind, x->file);
	memmove(b, from, (size_t)(c->text + c->text_used - from));
	c->text_used -= size;
	memmove(x, x + 1, (--c->nentries - j) * sizeof *x);
	/* every string of a /loader/entries entry lies in its block (bls_menu_add copies them
	 * all), so a block after this one moves down whole */
	for (unsigned i = c->first_bls; i < c->nentries; i++)
		if (c->entries[i].name >= from)
			for (unsigned k = 0; k < ARRAY_SIZE(x->str); k++)
				c->entries[i].str[k] -= size;
}

void bls_menu_add(struct cfg *c, const struct bls_entry *e, struct diag *d)
{
	struct cfg_entry v;
	unsigned p = c->first_bls;
	uint32_t need = 0, used = c->text_cfg;

	view(&v, e);
	for (unsigned k = 0; k < ARRAY_SIZE(v.str); k++)
		need += (uint32_t)str_len(v.str[k]) + 1;
	/* Sort, then cut, in the specification's order: an entry is in the menu when it fits (one
	 * more entry, its text) beside the better ones that are. So the menu does not depend on the
	 * order the directory lists the files. */
	for (; p < c->nentries && bls_compare(&c->entries[p], &v) <= 0; p++)
		used += c->entries[p].text_size;
	if (p >= CFG_MENU_MAX || used + need > CFG_TEXT_MAX) {
		left_out(d, e->kind, e->file);
		return;
	}
	used += need;
	for (unsigned j = p, n = p + 1; j < c->nentries;)
		if (n < CFG_MENU_MAX && used + c->entries[j].text_size <= CFG_TEXT_MAX)
			used += c->entries[j++].text_size, n++;
		else
			drop(c, j, d);
	for (unsigned k = 0; k < ARRAY_SIZE(v.str); k++)
		v.str[k] = cfg_text_add(c, v.str[k], str_len(v.str[k]));
	v.text_size = (uint16_t)need;
	memmove(&c->entries[p + 1], &c->entries[p], (c->nentries - p) * sizeof v);
	c->entries[p] = v;
	c->nentries++;
}

/* Whether a and b would show the same title and version. */
static bool same_show(const struct cfg_entry *a, const struct cfg_entry *b)
{
	return !str_cmp(cfg_entry_title(a), cfg_entry_title(b)) && !str_cmp(a->version, b->version);
}

void bls_menu_finish(struct cfg *c, const struct bls_loader *l)
{
	struct cfg_entry *e = c->entries;

	if (l && !c->timeout_line && l->has_timeout)
		c->timeout = l->timeout;
	if (l && !c->default_line && l->default_pattern[0]) {
		const char *pick = l->default_pattern;
		for (unsigned i = 0; i < c->nentries; i++)
			if (bls_glob(l->default_pattern, e[i].name)) {
				pick = e[i].name;
				break;
			}
		str_copy(c->default_name, sizeof c->default_name, pick);
	}
	for (unsigned i = c->first_bls; i < c->nentries; i++)
		for (unsigned k = 0; k < c->nentries; k++)
			e[i].show_file |= k != i && same_show(&e[i], &e[k]);
}
