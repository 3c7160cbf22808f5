/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector.cfg: the one boot menu both firmware paths read (docs/DESIGN.md "The config file").
 *
 *   timeout 3            # seconds; 0 boots at once
 *   default debian
 *   serial 115200        # COM1 mirror of the console ("off" to disable)
 *   editor off           # the menu's command-line editor (on, off; unset: on unless Secure Boot)
 *
 *   entry debian
 *     title   Debian GNU/Linux
 *     kernel  /vmlinuz
 *     initrd  /initrd.img        (may repeat: the files are concatenated, as Linux allows)
 *     cmdline root=LABEL=root console=ttyS0
 *
 *   entry pinned              pins: each "sha256" line holds the SHA-256 of the file named on
 *     kernel  /p/vmlinuz        the line above it (kernel, efi or initrd; blank and comment
 *     sha256  9f86d081...       lines may stand between); the loaders refuse to boot a file
 *     initrd  /p/initrd.img     whose hash differs (common/pin.h). 64 hex digits, either case.
 *     sha256  2c26b46b...
 *
 *   entry windows             an EFI application (UEFI only), its LoadOptions from cmdline;
 *     efi /EFI/Microsoft/Boot/bootmgfw.efi
 *     partition 3             optional: the file is on partition 3 of the boot disk (FAT)
 *
 *   entry dos                 a boot record (BIOS only): partition 2's first sector, or
 *     chainload 2             "chainload hd1" for BIOS disk 0x81's LBA 0
 *
 *   entry debian-uki          a unified kernel image (common/uki.h; both firmwares): its own
 *     uki /EFI/Linux/d.efi      .cmdline is the command line, its .osrel's PRETTY_NAME the
 *     sha256 5d41402a...        title unless a title line is given; a sha256 line pins the
 *                               whole file. /EFI/Linux holds Type #2 entries of its own
 *                               (common/bls.h); a file an uki line names is not one of them.
 *
 *   entry new                 boot counting (common/bootcount.h): "tries N" (1..255), the tries
 *     kernel  /n/vmlinuz        before the entry counts as failed; the loaders count them in the
 *     tries   3                 boot state block, not in this file, and 'anysector bless' takes
 *                               the line out. The legacy-gap stage2 does not know the key.
 *
 * An entry starts one thing: kernel, efi, chainload or uki. initrd goes only with kernel,
 * partition only with efi, cmdline not with chainload or uki.
 * '#' starts a comment at the start of a line or after whitespace; in a cmdline value only a
 * whole-line comment counts ('#' inside a command line is the kernel's business).
 * Unknown keys, missing values, bad numbers, duplicate entries, keys outside an entry that belong
 * in one, and an entry without a kernel are errors with the line number.
 *
 * Details: keys and entry names are case-insensitive; a key is separated from its value by
 * spaces or tabs; lines end in LF or CRLF and a leading UTF-8 byte order mark is skipped. The
 * global keys may stand anywhere, each once; title, kernel and cmdline once per entry. A value
 * longer than its field (CFG_*_MAX - 1 characters) is an error, never cut. timeout is decimal
 * 0..CFG_TIMEOUT_MAX; serial is "off" or one of 300 600 1200 2400 4800 9600 19200 38400 57600
 * 115200; editor is "on" or "off". Control characters (other than tab) and NUL bytes are errors,
 * except in a comment line, which is ignored whatever it holds. A file with no entry is an
 * error. Paths are given as written ('/' or '\\'; fat_open takes both). */
#ifndef ANYSECTOR_CONFIG_H
#define ANYSECTOR_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/sha256.h"

#define CFG_FILE_NAME "anysector.cfg"
/* The largest anysector.cfg any part accepts: the loaders read it whole (stage2 into the 64 KiB
 * it later gives the kernel's real-mode setup), and check/add refuse what they would refuse. */
#define CFG_FILE_MAX_BYTES (64u * 1024u)
#define CFG_MAX_ENTRIES 16        /* entries anysector.cfg may hold */
#define CFG_MENU_MAX 64           /* entries in the menu: anysector.cfg's, then /loader/entries' */
#define CFG_TEXT_MAX (56u * 1024u) /* bytes of every entry's strings together (struct cfg's
				   * arena): 16 anysector.cfg entries of the longest values take
				   * 31.5 KiB; typical /loader/entries files 0.3 to 0.6 KiB each */
#define CFG_MAX_INITRDS 4
#define CFG_NAME_MAX 64           /* an anysector.cfg entry name: 63 characters */
#define CFG_ID_MAX 256            /* a menu name: an anysector.cfg entry's, or a /loader/entries
				   * file's without ".conf" and its boot counter (250) */
#define CFG_TITLE_MAX 80
#define CFG_PATH_MAX 128
#define CFG_CMDLINE_MAX 1024
#define CFG_TIMEOUT_MAX 3600
#define CFG_DEFAULT_TIMEOUT 3
#define CFG_DEFAULT_SERIAL 115200u
#define CFG_PART_MAX 128          /* partition numbers 1..128 (a GPT's default array) */
#define CFG_BIOS_DISKS 16         /* hd0..hd15: BIOS drives 0x80..0x8F */

/* What an entry starts; the firmware that can start it (cfg_entry_runs_on). */
enum cfg_kind {
	CFG_KIND_LINUX = 0,   /* kernel: a bzImage (BIOS) or an EFI-stub kernel (UEFI) */
	CFG_KIND_EFI,         /* efi: an EFI application (UEFI only) */
	CFG_KIND_CHAIN,       /* chainload: a boot record (BIOS only) */
	CFG_KIND_UKI,         /* uki, or a /EFI/Linux file: a unified kernel image (both) */
};

enum cfg_firmware {
	CFG_FW_BIOS,
	CFG_FW_UEFI,
};

/* The editor key: unset, "editor on" or "editor off" (cfg_editor_allowed decides). */
enum cfg_editor {
	CFG_EDITOR_UNSET = 0,
	CFG_EDITOR_ON,
	CFG_EDITOR_OFF,
};

/* An entry of the menu. Its strings live in its cfg's text arena (never NULL: "" when unset),
 * so a menu of CFG_MENU_MAX entries with long fields fits stage2's memory; the loaders and the
 * tool only read them. */
struct cfg_entry {
	union {
		struct {
			const char *name;
			const char *title;          /* as written; "" when none */
			const char *kernel;         /* the kernel, or the EFI application (efi) */
			const char *initrd[CFG_MAX_INITRDS];
			const char *cmdline;
			/* /loader/entries only ("" otherwise): what orders it (common/bls.h) */
			const char *file;           /* the file's name ("x+2-1.conf") */
			const char *sort_key;
			const char *machine_id;
			const char *version;
		};
		const char *str[12];                /* the same, for moving them (bls_menu.c) */
	};
	uint8_t (*pin)[SHA256_BYTES];      /* [0] the kernel's, [1+i] initrd i's; NULL: no pins */
	int32_t tries_left;                /* the boot counter of the file name; -1: none */
	int32_t tries_done;
	unsigned line;                     /* where "entry" was written (anysector.cfg) */
	uint16_t text_size;                /* bytes of the arena that are this entry's alone (a
					    * /loader/entries entry's block; 0 otherwise) */
	uint8_t kind;                      /* enum cfg_kind */
	uint8_t partition;                 /* chainload: the partition of the boot disk whose boot
					    * record starts (0: hdN's LBA 0); efi: the partition of
					    * the boot disk holding the file (0: the boot partition) */
	uint8_t bios_disk;                 /* chainload hdN: N (BIOS drive 0x80 + N) */
	uint8_t ninitrd;
	uint8_t pinned;                    /* bit 0: the kernel (or EFI application) has a sha256
					    * line; bit 1+i: initrd i has one */
	uint8_t bls;                       /* from /loader/entries */
	uint8_t show_file;                 /* the menu shows its file name after its title and
					    * version: another entry shows those too */
};

#define CFG_UNTITLED "Linux"  /* the title of a /loader/entries entry without one (the
				* specification: never its file name) */

/* The menu: the loaders build it from anysector.cfg and /loader/entries (common/bls.h). */
struct cfg {
	unsigned timeout;             /* seconds */
	char default_name[CFG_ID_MAX]; /* the owner's choice: anysector.cfg's default, else the
					* name loader.conf's default matched (or its pattern, when it
					* matched none); "" for none (cfg_default_index) */
	uint32_t serial_baud;         /* 0 = no serial mirror */
	unsigned timeout_line;        /* where timeout / default were set; 0: not set */
	unsigned default_line;
	enum cfg_editor editor;
	unsigned nentries;
	unsigned first_bls;           /* entries before it are anysector.cfg's */
	struct cfg_entry entries[CFG_MENU_MAX];
	uint32_t text_used;
	uint32_t text_cfg;            /* of it, anysector.cfg's (the rest: /loader/entries') */
	char text[CFG_TEXT_MAX];      /* the entries' strings */
};


/* Parses text[0..len) (need not be NUL-terminated; a NUL byte inside is an error, except in a
 * comment line). Reports every problem as "anysector.cfg line N: ..." and returns AS_ECORRUPT if
 * there was any, else 0. On its own (without /loader/entries) a "default" naming no entry of the
 * file is an error. */
int cfg_parse(const char *text, size_t len, struct cfg *out, struct diag *d);

/* The same without the two checks on the whole file (an entry exists, the default names one):
 * for loaders that add the Boot Loader Specification's entries first (common/bls.h). An empty
 * text gives an empty configuration with the defaults. */
int cfg_parse_text(const char *text, size_t len, struct cfg *out, struct diag *d);
/* The checks on a menu built from anysector.cfg and /loader/entries: AS_ENOENT when it has no
 * entry (an error). A default that names no entry is a warning (code "cfg.default") saying which
 * entry boots instead; the loaders show it as a line of the menu too. */
int cfg_menu_check(const struct cfg *c, struct diag *d);

/* Index of the entry named name (the first in menu order), or -1. */
int cfg_find(const struct cfg *c, const char *name);
/* An entry's identifier in systemd's Boot Loader Interface is its name and this: "" for an
 * anysector.cfg entry; for a /loader/entries or /EFI/Linux one its file's suffix (".conf",
 * ".efi"), as systemd 252's bootctl and logind name such an entry ("new.conf" for
 * new+1-1.conf) and match LoaderEntrySelected against it (docs/DESIGN.md "The Boot Loader
 * Interface"). */
const char *cfg_entry_bli_suffix(const struct cfg_entry *e);
/* The entry an identifier the running system set names (LoaderEntryOneShot,
 * LoaderEntryDefault; systemctl passes on what its user typed): a menu name by cfg_find (a
 * file's name without counter and suffix is the Boot Loader Interface document's form), else
 * the first /loader/entries or /EFI/Linux entry whose name and suffix it is ("new.conf");
 * -1 for none. Without ASCII case, as names compare. */
int cfg_find_bli(const struct cfg *c, const char *id);
/* The default entry, -1 when there are none. The one rule of both loaders and the tool:
 *   1. the owner's choice: anysector.cfg's "default", else loader.conf's (the first entry in
 *      menu order its pattern matches);
 *   2. otherwise, or when that names no entry: the newest distribution kernel, which is the
 *      first /loader/entries entry in the specification's order that its boot counter does not
 *      mark bad;
 *   3. otherwise the first entry (anysector.cfg's first, else a bad one). */
int cfg_default_index(const struct cfg *c);
/* Whether the owner's choice names no entry (cfg_default_index then used rule 2 or 3). */
bool cfg_default_missing(const struct cfg *c);

/* The title e shows before its version (a /loader/entries entry's) and file name: its title, else CFG_UNTITLED (a /loader/entries
 * entry) or its name (an anysector.cfg entry). */
const char *cfg_entry_title(const struct cfg_entry *e);

/* Copies [s, s+n) and a NUL into c's text arena, which the caller knows has room (anysector.cfg
 * always fits, common/config.c; bls_menu_add checks first). With s NULL the n bytes
 * are taken as they are: zero while anysector.cfg is parsed (cfg_parse_text clears the arena;
 * only /loader/entries entries leave old bytes behind). */
const char *cfg_text_add(struct cfg *c, const char *s, size_t n);
/* An entry with every string "" and nothing else set. */
void cfg_entry_clear(struct cfg_entry *e);

/* Whether the n bytes at key are a key that belongs inside an entry (title, kernel, efi, ...;
 * case-insensitive, as the parser reads them). For tools that edit the file's text. */
bool cfg_is_entry_key(const char *key, size_t n);

/* The values `anysector add` writes (and the Boot Loader Specification reader may hold entry
 * file names to the name rule): a value is written only when the parser above reads it back
 * exactly as given, and a name only when it is one portable file name on any FAT, since it
 * names the entry's directory on the ESP. */
enum cfg_field {
	CFG_FIELD_NAME,
	CFG_FIELD_TITLE,
	CFG_FIELD_CMDLINE,
	CFG_FIELD_PATH,         /* an efi line's path on another partition */
};

enum cfg_fault {
	CFG_FAULT_NONE = 0,
	CFG_FAULT_EMPTY,        /* no characters (a cmdline may be empty: it then has none) */
	CFG_FAULT_TOO_LONG,     /* more than the field's CFG_*_MAX - 1 bytes */
	CFG_FAULT_CONTROL,      /* a control character other than tab, or DEL */
	CFG_FAULT_NOT_UTF8,     /* title, path: not well-formed UTF-8 (common/utf8.h) */
	CFG_FAULT_EDGE_SPACE,   /* title, cmdline, path: white space at either end (trimmed) */
	CFG_FAULT_COMMENT,      /* title, path: '#' first or after white space (a comment) */
	CFG_FAULT_CHAR,         /* name: a byte other than A-Z a-z 0-9 . _ - + */
	CFG_FAULT_DOTS,         /* name: "." or "..", or a final '.' (FAT drops it) */
	CFG_FAULT_RESERVED,     /* name: CON, PRN, AUX, NUL, COM1-9 or LPT1-9, alone or before a
				 * '.': device names DOS, Windows and mtools keep */
};

/* The first fault of s[0..n) as a value of field, CFG_FAULT_NONE when it has none; *at (may be
 * NULL) gets the index of the byte at fault (0 when the fault is the whole value's). */
enum cfg_fault cfg_value_fault(enum cfg_field field, const char *s, size_t n, size_t *at);

/* Whether the running firmware can start e. */
bool cfg_entry_runs_on(const struct cfg_entry *e, enum cfg_firmware fw);

/* Whether the menu may edit command lines: "editor off" never; "editor on" always; unset: unless
 * Secure Boot is on (an edited command line is not what was signed off). */
bool cfg_editor_allowed(const struct cfg *c, bool secure_boot);

#endif
