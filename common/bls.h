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
 * the key (case-sensitive), whitespace, the value; a line starting with '#' is a comment and is
 * ignored whatever it holds; unknown keys are ignored; a key given again replaces its value,
 * except initrd (each line one more image, loaded in order) and options (joined with one space).
 * Paths are relative to the root of the partition with or without a leading '/'. An entry needs
 * a linux line. Entries that start something other than a Linux kernel (efi, devicetree) or name
 * another architecture are reported and left out.
 *
 * The file name: NAME.conf of at most 255 characters, NAME from the specification's characters
 * (A-Z a-z 0-9 + - _ ., common/name.h); another name is reported and left out, the same in the
 * loaders and the tool. A boot counter "+LEFT" or "+LEFT-DONE" after the last '+' of NAME is
 * not part of the entry's name (its id); every file is read, so one id may have several files
 * (boot-counted variants), ordered as below. BOOTX64.EFI counts a try by renaming the file
 * (common/bootcount.h, efi/rename.c); stage2 counts it in the boot state block.
 *
 * Fields shown or compared (title, version, sort-key, machine-id) keep up to 255 bytes; a longer
 * value is cut there with a warning, never the entry left out. A title that is not UTF-8 is kept
 * with U+FFFD for each bad byte (a warning). A machine-id is text compared as written, as
 * systemd-boot compares it (so its UUID form is fine too). A path or command line longer than its field, a NUL or a control character other
 * than tab outside a comment line is an error that leaves the entry out (never cut): a loader
 * must not boot a path or command line other than the one written. Messages name the file (as
 * it is called, boot counter and all) and the line. */
#ifndef ANYSECTOR_BLS_H
#define ANYSECTOR_BLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/diag.h"

#define BLS_ENTRIES_DIR "/loader/entries"
#define BLS_LOADER_CONF "/loader/loader.conf"
#define BLS_SUFFIX ".conf"
#define BLS_FILE_MAX 16384u      /* bytes of one entry file or loader.conf (they are ~300) */
#define BLS_FILES_MAX 256u       /* directory entries looked at in /loader/entries */
#define BLS_NAME_MAX 255         /* characters of a file name, ".conf" included (the spec's) */
#define BLS_TEXT_MAX 256         /* title, version, sort-key, machine-id: 255 bytes kept */
#define BLS_PATH_MAX 256         /* linux and initrd paths (FAT_PATH_MAX) */
#define BLS_PATTERN_MAX 128      /* loader.conf's default glob */

/* One entry file as parsed, before it joins a menu (the loaders keep one, as scratch). */
struct bls_entry {
	char file[BLS_NAME_MAX + 1];         /* its name in /loader/entries (or /EFI/Linux) */
	char id[CFG_ID_MAX];                 /* the name without ".conf" and the boot counter */
	char title[BLS_TEXT_MAX];
	char version[BLS_TEXT_MAX];
	char sort_key[BLS_TEXT_MAX];
	char machine_id[BLS_TEXT_MAX];
	char kernel[BLS_PATH_MAX];           /* the linux path, with a leading '/' */
	char initrd[CFG_MAX_INITRDS][BLS_PATH_MAX];
	char cmdline[CFG_CMDLINE_MAX];       /* every options line, joined with one space */
	unsigned ninitrd;
	int32_t tries_left;                  /* the boot counter "+L-D" of the file name; -1: none */
	int32_t tries_done;
	uint8_t kind;                        /* CFG_KIND_LINUX; CFG_KIND_UKI: a Type #2 entry, a
					      * unified kernel image in /EFI/Linux (common/uki.h) */
};

struct bls_loader {
	char default_pattern[BLS_PATTERN_MAX]; /* "" when not set (or "@saved", which is refused
						* with a warning); a ".conf" at its end is taken
						* off, as entry ids have none */
	bool has_timeout;
	unsigned timeout;                    /* seconds; menu-force waits CFG_TIMEOUT_MAX */
};

/* Whether path's last component is NAME SUFFIX by the rule above (suffix: BLS_SUFFIX, or
 * UKI_SUFFIX for a Type #2 entry, common/uki.h): its name and, without the suffix and boot
 * counter, its id into out, which is otherwise cleared. */
bool bls_file_id(const char *path, const char *suffix, struct bls_entry *out);
/* The same for BLS_SUFFIX, reported when it is not. */
bool bls_name_check(const char *path, struct bls_entry *out, struct diag *d);

/* Parses one entry file. file is its path ("/loader/entries/x.conf"): the entry's id and boot
 * counter come from its last component, and every message names it. Returns 0; AS_ECORRUPT when
 * the entry is unusable (each reason reported as an error with its line); AS_EUNSUPP when it is
 * valid but not for this loader (efi, devicetree, another architecture; reported as a warning);
 * AS_EINVAL when the file name breaks the rule above (reported). */
int bls_parse(const char *text, size_t len, const char *file, struct bls_entry *out,
	      struct diag *d);

/* Parses /loader/loader.conf: default and timeout; other keys are systemd-boot's and ignored.
 * A bad value is reported as a warning and ignored. */
void bls_loader_parse(const char *text, size_t len, struct bls_loader *out, struct diag *d);

/* The version order of the UAPI Version Format Specification, as systemd's
 * strverscmp_improved: <0, 0, >0. */
int bls_vercmp(const char *a, const char *b);

/* The specification's menu order of two /loader/entries entries: <0 when a is shown before b.
 * Bad entries (no tries left) last; entries with a sort-key before those without, ordered by
 * sort-key, machine-id (both ascending) and version (newest first); then by the id in version
 * order, newest first; then, among boot-counted variants of one id, more tries left first, then
 * fewer tries done (systemd-boot's rules). Where systemd-boot leaves the order to the directory,
 * anysector decides so every reader builds the same menu: a file without a counter before one
 * with, then the file names by byte. */
int bls_compare(const struct cfg_entry *a, const struct cfg_entry *b);

/* Whether name matches a glob pattern ('*', '?', "[a-z]", "[!x]"), ASCII case-insensitive (the
 * files live on FAT). The walk is bounded by the lengths: no recursion. */
bool bls_glob(const char *pattern, const char *name);

/* The menu: anysector.cfg's entries (cfg_parse_text), then the /loader/entries ones, which
 * bls_menu_add keeps in the specification's order as they come. Sort, then cut: when the menu
 * holds CFG_MENU_MAX entries or its text arena is full, the entries sorting last are left out,
 * each with a warning naming its file; so which are kept does not depend on the order the
 * directory lists them. */
void bls_menu_begin(struct cfg *c);
/* Adds an entry. Its name may be another entry's too (a boot-counted variant, or an
 * anysector.cfg entry's): it is still shown, and the name means the first in menu order. */
void bls_menu_add(struct cfg *c, const struct bls_entry *e, struct diag *d);
/* loader.conf's timeout and default (l may be NULL) where anysector.cfg set none: the default is
 * the first entry in menu order its pattern matches (a pattern matching none stays the owner's
 * choice, so cfg_default_missing says so); then which /loader/entries entries show their file
 * name (menu_title): those whose title and version are another entry's too. */
void bls_menu_finish(struct cfg *c, const struct bls_loader *l);

/* What a loader keeps while it reads the entries (static storage in stage2). */
struct bls_scratch {
	struct bls_entry e;
	struct bls_loader l;
	unsigned seen;                       /* directory entries looked at */
	char path[sizeof BLS_ENTRIES_DIR + BLS_NAME_MAX + 1]; /* the one being read */
};

/* One directory entry of /loader/entries, judged alike by the loaders and the tool, before it
 * is read: BLS_SKIP (not an entry file: a directory, or a name not ending in ".conf"; or a
 * name that breaks the rule, or more than BLS_FILE_MAX bytes: said, left out), BLS_STOP
 * (BLS_FILES_MAX were looked at already: said), else BLS_READ: read it and hand it to
 * bls_menu_file. */
enum { BLS_READ, BLS_SKIP, BLS_STOP };
int bls_dir_entry(struct bls_scratch *s, const char *name, bool is_dir, uint32_t size,
		  struct diag *d);
/* Parses the file bls_dir_entry just judged BLS_READ (text [0, len)) and adds it to the menu.
 * Returns bls_parse's code. */
static inline int bls_menu_file(struct cfg *c, struct bls_scratch *s, const char *text,
				size_t len, struct diag *d)
{
	int rc = bls_parse(text, len, s->path, &s->e, d);
	if (!rc)
		bls_menu_add(c, &s->e, d);
	return rc;
}

/* Adds the entries of BLS_ENTRIES_DIR on fs to c (after its own) and applies BLS_LOADER_CONF:
 * bls_menu_begin, bls_dir_entry and bls_menu_file for each directory entry (read into buf, of
 * BLS_FILE_MAX bytes), bls_menu_finish. A file that cannot be read or parsed is reported and left out; the
 * menu is still made. Returns the number of valid entry files read. m (NULL: none) is told
 * each file read, before it is parsed (common/measure.h). */
struct fat_fs;
struct measure;
unsigned bls_load_fat(struct fat_fs *fs, struct cfg *c, char *buf, struct bls_scratch *s,
		      struct measure *m, struct diag *d);

#endif
