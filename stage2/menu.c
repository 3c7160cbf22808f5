#include "stage2/menu.h"

#include "stage2/console.h"

#define TICKS_PER_10S 182u   /* the BIOS timer runs at 18.2 Hz */

static void show(const struct cfg *c, int def)
{
	con_printf("\nanysector boot menu\n");
	for (unsigned i = 0; i < c->nentries; i++)
		con_printf(" %c %u) %s\n", (int)i == def ? '*' : ' ', i + 1,
			   c->entries[i].title[0] ? c->entries[i].title : c->entries[i].name);
}

static void show_selection(const struct cfg *c, int sel)
{
	const struct cfg_entry *e = &c->entries[sel];
	con_printf("\rselected: %d) %.60s   ", sel + 1, e->title[0] ? e->title : e->name);
}

/* Waits up to the timeout; returns the first key, or KEY_NONE when time ran out. */
static int countdown(const struct cfg *c, int def)
{
	uint32_t total = c->timeout * TICKS_PER_10S / 10u;
	uint32_t start = con_ticks(), last_shown = ~0u;

	for (;;) {
		uint32_t now = con_ticks();
		if (now < start)              /* midnight rollover: count from here */
			start = now;
		uint32_t elapsed = now - start;
		if (elapsed >= total)
			break;
		uint32_t left = (total - elapsed) * 10u / TICKS_PER_10S + 1u;
		if (left != last_shown) {
			con_printf("\rbooting %u) in %u s; press a key for the menu ", def + 1, left);
			last_shown = left;
		}
		int k = con_getkey();
		if (k != KEY_NONE) {
			con_printf("\n");
			return k;
		}
	}
	con_printf("\n");
	return KEY_NONE;
}

int menu_choose(const struct cfg *c, bool use_timeout)
{
	int def = cfg_default_index(c);
	int sel = def;
	int k = KEY_NONE;

	show(c, def);
	if (use_timeout) {
		if (!c->timeout)
			return def;
		k = countdown(c, def);
		if (k == KEY_NONE)
			return def;
	}
	con_printf("waiting for a key: 1-%u boots an entry; Up/Down and Enter choose\n",
		   c->nentries);
	show_selection(c, sel);
	for (;; k = con_getkey()) {
		if (k == KEY_NONE)
			continue;
		if (k >= '1' && k <= '9' && (unsigned)(k - '1') < c->nentries) {
			con_printf("\n");
			return k - '1';
		}
		if (k == KEY_ENTER) {
			con_printf("\n");
			return sel;
		}
		if (k == KEY_UP && sel > 0)
			sel--;
		else if (k == KEY_DOWN && (unsigned)sel + 1 < c->nentries)
			sel++;
		show_selection(c, sel);
	}
}
