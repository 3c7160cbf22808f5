/* SPDX-License-Identifier: BSD-2-Clause */
/* Boot Loader Specification, Type #1 (uapi-group.org "Boot Loader Specification"): the drop-in
 * entries /loader/entries/NAME.conf that systemd's kernel-install writes on the boot partition, and
 * the default and timeout of /loader/loader.conf (systemd-boot's file).
 *
 *   title      Debian GNU/Linux 12 (bookworm)
 *   version    6.1.0-18-amd64
 *   machine-id 0123456789abcdef0123456789abcdef
 *   sort-key   debian
 *   options    root=PARTUUID=... ro
 *   linux      /0123456789abcdef0123456789abcdef/6.1.0-18-amd64/linux
 *   initrd     /0123456789abcdef0123456789abcdef/6.1.0-18-amd64/initrd.img-6.1.0-18-amd64
 *
 * Rules (the specification's, and where it is silent systemd-boot's): the first word of a line is
 * the key (case-sensitive), whitespace, the value; lines starting with '#' are comments; unknown
 * keys are ignored; a key given again replaces its value, except initrd (each line one more
 * image, loaded in order) and options (joined with one space). Paths are relative to the root
 * of the partition with or without a leading '/'. An entry needs a linux line. Entries that
 * start something other than a Linux kernel (efi, devicetree) or name another architecture are
 * reported and left out; anysector does not count boots, but sorts entries its counter marks
 * bad ("+0-N" in the file name) last.
 *
 * Unlike anysector.cfg, a value longer than its field is an error that leaves the entry out
 * (never cut), and so is a NUL byte or a control character other than tab: a loader must not
 * boot a path or command line other than the one written. Messages name the file and the line. */
#ifndef ANYSECTOR_BLS_H
#define ANYSECTOR_BLS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/config.h"
#include "common/diag.h"

#define BLS_ENTRIES_DIR "/loader/entries"
#define BLS_LOADER_CONF "/loader/loader.conf"
#define BLS_SUFFIX ".conf"
#define BLS_FILE_MAX 16384u      /* bytes of one entry file or loader.conf (they are ~300) */
#define BLS_FILES_MAX 256u       /* directory entries looked at in /loader/entries */
#define BLS_VERSION_MAX 64
#define BLS_SORT_KEY_MAX 64
#define BLS_MACHINE_ID_MAX 33    /* 32 hex digits */
#define BLS_PATTERN_MAX 128      /* loader.conf's default glob */

/* What orders an entry in the menu. */
struct bls_key {
	char id[CFG_NAME_MAX];               /* file name without ".conf" and the boot counter */
	char sort_key[BLS_SORT_KEY_MAX];
	char machine_id[BLS_MACHINE_ID_MAX];
	char version[BLS_VERSION_MAX];
	int tries_left;                      /* the boot counter "+L-D" of the file name; -1: none */
	int tries_done;
};

struct bls_entry {
	struct bls_key key;
	/* What the menu shows and boots: name = key.id, the title as written, kernel = the linux
	 * path and initrd paths with a leading '/', cmdline = every options line joined with one
	 * space. */
	struct cfg_entry e;
};

struct bls_loader {
	char default_pattern[BLS_PATTERN_MAX]; /* "" when not set (or "@saved"); a ".conf" at its
						* end is taken off, as entry ids have none */
	bool has_timeout;
	unsigned timeout;                    /* seconds; menu-force waits CFG_TIMEOUT_MAX */
};

/* Parses one entry file. file is its path ("/loader/entries/x.conf"): the entry's id and boot
 * counter come from its last component, and every message names it. Returns 0; AS_ECORRUPT when
 * the entry is unusable (each reason reported as an error with its line); AS_EUNSUPP when it is valid but
 * not for this loader (efi, devicetree, another architecture; reported as a warning);
 * AS_EINVAL when the file name is not NAME.conf of at most CFG_NAME_MAX - 1 characters before
 * the suffix (reported). */
int bls_parse(const char *text, size_t len, const char *file, struct bls_entry *out,
	      struct diag *d);

/* Parses /loader/loader.conf: default and timeout; other keys are systemd-boot's and ignored.
 * A bad value is reported as a warning and ignored. */
void bls_loader_parse(const char *text, size_t len, struct bls_loader *out, struct diag *d);

/* The version order of the UAPI Version Format Specification, as systemd's
 * strverscmp_improved: <0, 0, >0. */
int bls_vercmp(const char *a, const char *b);

/* The specification's menu order: <0 when a is shown before b. Bad entries last; entries with a
 * sort-key before those without, ordered by sort-key, machine-id (both ascending) and version
 * (newest first); then by the id in version order, newest first; then by boot counter. */
int bls_compare(const struct bls_key *a, const struct bls_key *b);

/* Whether name matches a glob pattern ('*', '?', "[a-z]", "[!x]"), ASCII case-insensitive (the
 * files live on FAT). The walk is bounded by the lengths: no recursion. */
bool bls_glob(const char *pattern, const char *name);

/* The entries of a menu built from anysector.cfg and then the BLS entries, which follow in the
 * specification's order. Keys are kept beside the cfg's entries (no heap: stage2 keeps this in
 * its bss). */
struct bls_menu {
	unsigned first;                      /* index of the first BLS entry in the cfg */
	struct bls_key keys[CFG_MAX_ENTRIES];
};

/* Starts with the cfg's own entries (c->nentries of them). */
void bls_menu_begin(struct bls_menu *m, const struct cfg *c);
/* Adds an entry (its title shows the version too). One whose name is in the menu already, or
 * that finds the menu full, is left out with a warning naming it. */
void bls_menu_add(struct bls_menu *m, struct cfg *c, const struct bls_entry *e, struct diag *d);
/* Sorts the BLS entries; then loader.conf's default (the first BLS entry in menu order whose id
 * matches) and timeout apply where anysector.cfg set none (l may be NULL). */
void bls_menu_finish(struct bls_menu *m, struct cfg *c, const struct bls_loader *l);

/* What a loader keeps while it reads the entries (static storage in stage2). */
struct bls_scratch {
	struct bls_entry e;
	struct bls_menu m;
	struct bls_loader l;
};

/* Adds the entries of BLS_ENTRIES_DIR on fs to c (after its own) and applies BLS_LOADER_CONF:
 * bls_menu_begin/add/finish over every *.conf file, each read into buf (cap bytes, at most
 * BLS_FILE_MAX are used). At most BLS_FILES_MAX directory entries are looked at. A file that
 * cannot be read or parsed is reported and left out; the menu is still made. Returns the number
 * of valid entry files read. m (NULL: none) is told each file read, before it is parsed
 * (common/measure.h). */
struct fat_fs;
struct measure;
unsigned bls_load_fat(struct fat_fs *fs, struct cfg *c, char *buf, size_t cap,
		      struct bls_scratch *s, struct measure *m, struct diag *d);

#endif
