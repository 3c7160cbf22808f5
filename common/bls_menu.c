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

static void fill(struct cfg_entry *ce, const struct bls_entry *e)
{
	memset(ce, 0, sizeof *ce);
	str_copy(ce->name, sizeof ce->name, e->key.id);
	/* Kernels of one system share a title: the version tells them apart (systemd-boot adds it
	 * when titles repeat). Cut only on screen, never in what boots. */
	const char *t = e->title[0] ? e->title : e->key.id;
	if (e->key.version[0])
		fmt_snprintf(ce->title, sizeof ce->title, "%s (%s)", t, e->key.version);
	else
		str_copy(ce->title, sizeof ce->title, t);
	str_copy(ce->kernel, sizeof ce->kernel, e->kernel);
	ce->ninitrd = e->ninitrd;
	for (unsigned i = 0; i < e->ninitrd; i++)
		str_copy(ce->initrd[i], sizeof ce->initrd[i], e->initrd[i]);
	str_copy(ce->cmdline, sizeof ce->cmdline, e->options);
}

void bls_menu_add(struct bls_menu *m, struct cfg *c, const struct bls_entry *e, struct diag *d)
{
	unsigned slot = c->nentries;

	if (cfg_find(c, e->key.id) >= 0) {
		diag_warn(d, "bls.duplicate", "loader entry %s" BLS_SUFFIX " has the name of an entry "
			  "already in the menu; left out", e->key.id);
		return;
	}
	if (slot == CFG_MAX_ENTRIES) {
		/* Full: keep the entries that sort first. */
		unsigned worst = m->first;
		for (unsigned i = m->first + 1; i < c->nentries; i++)
			if (bls_compare(&m->keys[i], &m->keys[worst]) > 0)
				worst = i;
		const char *out = e->key.id;
		if (worst >= c->nentries || bls_compare(&e->key, &m->keys[worst]) < 0) {
			if (worst >= c->nentries) {
				slot = CFG_MAX_ENTRIES;
			} else {
				out = c->entries[worst].name;
				slot = worst;
			}
		} else {
			slot = CFG_MAX_ENTRIES;
		}
		diag_warn(d, "bls.menu_full", "the menu holds %u entries: loader entry %s" BLS_SUFFIX
			  " is left out", CFG_MAX_ENTRIES, out);
		if (slot == CFG_MAX_ENTRIES)
			return;
	} else {
		c->nentries++;
	}
	m->keys[slot] = e->key;
	fill(&c->entries[slot], e);
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
	if (!c->default_line && l->default_pattern[0]) {
		char conf[CFG_NAME_MAX + sizeof BLS_SUFFIX];
		for (unsigned i = m->first; i < c->nentries; i++) {
			fmt_snprintf(conf, sizeof conf, "%s" BLS_SUFFIX, c->entries[i].name);
			if (bls_glob(l->default_pattern, c->entries[i].name) ||
			    bls_glob(l->default_pattern, conf)) {
				str_copy(c->default_name, sizeof c->default_name, c->entries[i].name);
				break;
			}
		}
	}
}
