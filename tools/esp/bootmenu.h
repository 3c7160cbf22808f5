/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu of a boot partition as the loaders will show it: anysector.cfg's entries, then
 * the Boot Loader Specification's, built with the loaders' own functions (common/bls.h) from the
 * files of an ESP session, and for each entry where it comes from. list prints it; remove,
 * set-default and add check their changes against it. */
#ifndef ANYSECTOR_TOOLS_BOOTMENU_H
#define ANYSECTOR_TOOLS_BOOTMENU_H

#include <stdbool.h>
#include <stddef.h>

#include "common/bls.h"
#include "tools/esp/esp_read.h"
#include "tools/base/report.h"

struct menu_source {
	bool bls;                           /* from /loader/entries or /EFI/Linux (else
					     * anysector.cfg) */
	char path[FAT_PATH_MAX + 32];       /* the file it comes from ("/anysector.cfg") */
};

struct boot_menu {
	struct cfg cfg;                     /* the menu, as the loaders build it */
	struct menu_source src[CFG_MENU_MAX];
	char *cfg_text;                     /* anysector.cfg, NUL-terminated (NULL: none) */
	size_t cfg_len;
	bool has_loader;                    /* /loader/loader.conf was read */
	struct bls_loader loader;
	const char *timeout_from;           /* "anysector.cfg", "loader.conf" or "built-in" */
	bool valid;                         /* the loaders accept it (cfg_menu_check) */
};

/* Reads anysector.cfg, /loader/entries and /loader/loader.conf through s and builds the menu.
 * Every problem goes to r as the loaders would say it (a BLS file left out is a warning there,
 * an error when it is broken). Returns 0; AS_ECORRUPT when anysector.cfg does not parse (the
 * loaders would stop: nothing else is read); another AS_* code when a file cannot be read. */
int boot_menu_load(struct esp_session *s, struct boot_menu *m, struct report *r);
/* The same with bls false: anysector.cfg alone, the menu a locked loader shows
 * (common/cfg_lock.h). */
int boot_menu_load_as(struct esp_session *s, bool bls, struct boot_menu *m, struct report *r);
void boot_menu_free(struct boot_menu *m);

/* Under BIOS on a disk whose stage2 is its legacy-gap build (common/features.h), which reads
 * neither /EFI/Linux nor anysector.cfg's uki entries' files and boots no unified kernel image. */
enum gap_bios {
	GAP_BIOS_SAME,      /* m has no unified kernel image: the same menu as stage2.bin's */
	GAP_BIOS_OTHERS,    /* some are left out or shown UEFI only; another entry boots by default */
	GAP_BIOS_WAITS,     /* the default is an uki entry of anysector.cfg: the menu waits */
	GAP_BIOS_NOTHING,   /* no entry is left: stage2 stops with nothing to boot */
};
/* What the legacy-gap stage2 makes of m, the menu read through s by boot_menu_load: its menu
 * built as that stage2 builds it. Unless GAP_BIOS_SAME, one sentence to r (boot.gap_uki; a
 * warning, an error for GAP_BIOS_NOTHING) naming what it leaves out and what it boots by
 * default. */
enum gap_bios boot_menu_gap(struct esp_session *s, const struct boot_menu *m, struct report *r);

/* The menu index of the entry called name (case-insensitive, as the loaders match), or -1. */
int boot_menu_find(const struct boot_menu *m, const char *name);

/* The files of e that are on the boot partition (its kernel or EFI application, its initrds)
 * into files; none for a chainload entry or an EFI application on another partition. Returns
 * how many. */
unsigned entry_boot_files(const struct cfg_entry *e, const char *files[1 + CFG_MAX_INITRDS]);

#endif
