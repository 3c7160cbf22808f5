/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu: anysector.cfg's entries, then the Boot Loader Specification's in its order
 * (common/bls.h). Both loaders and the installer's list build it with these functions, so they
 * show the same entries in the same order with the same default. */
#include "common/bls.h"

#include "common/fmt.h"
#include "common/mem.h"
#include "common/str.h"

void bls_menu_begin(struct bls_menu *m, const struct cfg *c)
{
	m->first = c->nentries;
}

/* Swaps two slots byte by byte: a cfg entry is ~2 KiB, too big for a temporary on stage2's
 * stack. */
static void swap_bytes(void *a, void *b, size_t n)
{
	uint8_t *x = a, *y = b;
	for (size_t i = 0; i < n; i++) {
		uint8_t t = x[i];
		x[i] = y[i];
		y[i] = t;
	}
}

void bls_menu_add(struct bls_menu *m, struct cfg *c, const struct bls_entry *e, struct diag *d)
{
	const char *why = 0;

	if (cfg_find(c, e->key.id) >= 0)
		why = "has the name of an entry already in the menu";
	else if (c->nentries == CFG_MAX_ENTRIES)
		why = "does not fit: the menu holds 16 entries";
	if (why) {
		diag_warn(d, "bls.left_out", "loader entry %s%s %s; left out", e->key.id, BLS_SUFFIX,
			  why);
		return;
	}
	struct cfg_entry *ce = &c->entries[c->nentries];
	m->keys[c->nentries++] = e->key;
	*ce = e->e;
	/* Kernels of one system share a title: the version tells them apart (systemd-boot adds it
	 * when titles repeat). Cut only on screen, never in what boots. */
	const char *t = e->e.title[0] ? e->e.title : e->key.id;
	if (e->key.version[0])
		fmt_snprintf(ce->title, sizeof ce->title, "%s (%s)", t, e->key.version);
	else
		str_copy(ce->title, sizeof ce->title, t);
}

void bls_menu_finish(struct bls_menu *m, struct cfg *c, const struct bls_loader *l)
{
	/* Insertion sort: stable, at most CFG_MAX_ENTRIES^2 steps, no temporary entry. */
	for (unsigned i = m->first + 1; i < c->nentries; i++)
		for (unsigned j = i; j > m->first && bls_compare(&m->keys[j - 1], &m->keys[j]) > 0;
		     j--) {
			swap_bytes(&m->keys[j - 1], &m->keys[j], sizeof m->keys[0]);
			swap_bytes(&c->entries[j - 1], &c->entries[j], sizeof c->entries[0]);
		}
	if (!l)
		return;
	if (!c->timeout_line && l->has_timeout)
		c->timeout = l->timeout;
	for (unsigned i = m->first; !c->default_line && i < c->nentries; i++)
		if (l->default_pattern[0] && bls_glob(l->default_pattern, c->entries[i].name)) {
			str_copy(c->default_name, sizeof c->default_name, c->entries[i].name);
			break;
		}
}
