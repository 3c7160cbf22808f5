/* SPDX-License-Identifier: BSD-2-Clause */
/* Unified kernel images (UAPI.5 "Unified Kernel Image"; the Boot Loader Specification's "Type #2
 * EFI Unified Kernel Images"): one PE file holding an EFI stub and, in sections, the kernel
 * (.linux), the initrd (.initrd, with CPU microcode in .ucode before it), the command line
 * (.cmdline), an os-release file (.osrel) and the kernel's version (.uname).
 *
 * Both loaders judge a file alike with uki_parse, from its first UKI_HEAD_BYTES bytes and its
 * size: a PE image for x86-64 whose headers and section table lie in those bytes, whose every
 * section lies inside the file, and which has .linux, .cmdline and .osrel (the specification
 * requires the last two). Under UEFI the firmware then starts the file (its stub reads the
 * sections); stage2 reads .linux, .ucode, .initrd and .cmdline itself and boots the kernel by the
 * BIOS boot protocol, so a file that fails here is a sentence, never a jump.
 *
 * The menu shows .osrel's PRETTY_NAME, sorts by its VERSION_ID (the specification's version) and
 * IMAGE_ID or ID (the sort-key, as systemd's kernel-install writes it), and boots .cmdline. */
#ifndef ANYSECTOR_UKI_H
#define ANYSECTOR_UKI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/diag.h"
#include "common/pe.h"

#define UKI_DIR "/EFI/Linux"
#define UKI_SUFFIX ".efi"
#define UKI_HEAD_BYTES 4096u      /* the bytes the headers and section table must lie in (the
				   * stub's are 1 KiB: objcopy adds sections in place) */
#define UKI_OSREL_MAX 4096u       /* bytes of .osrel read (os-release files are ~400) */
#define UKI_PE_MACHINE_X64 0x8664

enum uki_section {
	UKI_LINUX,
	UKI_INITRD,
	UKI_UCODE,
	UKI_CMDLINE,
	UKI_OSREL,
	UKI_UNAME,
	UKI_SECTIONS,
};

struct uki {
	struct pe_span sec[UKI_SECTIONS];   /* where each section lies in the file */
	uint8_t has;                        /* bit i: section i is there */
};

static inline bool uki_has(const struct uki *u, enum uki_section s)
{
	return (u->has >> s) & 1u;
}

/* Judges the file path of file_len bytes from head, its first min(file_len, UKI_HEAD_BYTES)
 * bytes (more are fine). Returns 0; AS_ECORRUPT for a damaged file (not a PE image, headers or
 * a section outside the file, a .cmdline longer than cmdline_max - 1 bytes or .osrel longer
 * than UKI_OSREL_MAX) and AS_EUNSUPP for a PE file that is no unified kernel image for this
 * machine (another machine, no .linux, .cmdline or .osrel): one sentence each, naming path. */
int uki_parse(const uint8_t *head, size_t head_len, uint64_t file_len, const char *path,
	      size_t cmdline_max, struct uki *u, struct diag *d);

/* The value of key in os-release text (os-release(5): KEY=VALUE lines, '#' comments, the value
 * in double or single quotes or none, a backslash taking the next character literally outside
 * single quotes; the last assignment wins) into out (cap bytes, NUL-terminated). Returns its
 * length; -1 when the key is not set; -2 when it does not fit (out then holds its first
 * cap - 1 bytes) or has a control character (out then holds ""). */
int uki_osrel_value(const char *text, size_t len, const char *key, char *out, size_t cap);

/* Reads len bytes of the file at off into buf: 0 or an AS_* code (the reader says why). */
typedef int (*uki_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

/* What the menu shows and boots of the UKI path (size bytes, read through read; buf holds
 * UKI_ENTRY_BUF bytes): uki_parse's judgement; then into out: kind CFG_KIND_UKI, kernel =
 * path, cmdline = .cmdline's text, title = .osrel's PRETTY_NAME (else NAME; else none),
 * version = VERSION_ID and sort_key = IMAGE_ID (else ID), as the specification and
 * kernel-install use them. A value too long for its field or with a control character is left
 * unset with a warning: the entry is still offered. out's file and id are the caller's.
 * Returns 0, uki_parse's refusal, or the reader's code (reported). */
#define UKI_ENTRY_BUF (UKI_HEAD_BYTES + UKI_OSREL_MAX + CFG_CMDLINE_MAX)
struct bls_entry;
int uki_entry(const char *path, uint64_t size, uki_read_fn read, void *ctx, char *buf,
	      struct bls_entry *out, struct diag *d);

/* One directory entry of UKI_DIR (name, size bytes; its bytes through read), judged alike by
 * the loaders and the installer: a directory or a name not ending in ".efi" is no entry (0); a
 * file an anysector.cfg uki entry names (those before c->first_bls) is that entry's (0); a
 * name that is not NAME.efi by the rule of common/bls.h (bls_file_id), or a file uki_entry
 * refuses, is said and left out (-1); else it is handed to bls_menu_add (1), so it sorts with
 * the /loader/entries entries by the same rules. e and buf (UKI_ENTRY_BUF bytes) are scratch. */
int uki_dir_entry(struct cfg *c, struct bls_entry *e, const char *name, bool is_dir,
		  uint64_t size, uki_read_fn read, void *ctx, char *buf, struct diag *d);
/* An anysector.cfg uki entry ce of c (its file of size bytes through read): its command line,
 * and its title unless it has one, from the file, into c's arena. Before bls_menu_begin: the
 * strings join anysector.cfg's. A file uki_entry refuses is said and ce left as it is (booting
 * it says why again). scratch and buf are scratch. */
void uki_cfg_entry(struct cfg *c, struct cfg_entry *ce, uint64_t size, uki_read_fn read,
		   void *ctx, char *buf, struct bls_entry *scratch, struct diag *d);

/* For the loaders (bls_load_fat), on fs: uki_cfg_entry for each of anysector.cfg's uki entries
 * (called before bls_menu_begin); uki_load_fat adds the Type #2 entries of UKI_DIR by
 * uki_dir_entry (after bls_menu_begin). At most BLS_FILES_MAX directory entries are looked at.
 * buf holds UKI_ENTRY_BUF bytes. */
struct fat_fs;
struct bls_scratch;
void uki_cfg_fat(struct fat_fs *fs, struct cfg *c, char *buf, struct bls_scratch *s,
		 struct diag *d);
void uki_load_fat(struct fat_fs *fs, struct cfg *c, char *buf, struct bls_scratch *s,
		  struct diag *d);

/* The command line .cmdline holds, [text, text+*len): trailing NULs and white space (a newline
 * at its end) are not part of it. False, with a sentence naming path, when what is left has a
 * control character other than tab. */
bool uki_cmdline(const char *text, size_t *len, const char *path, struct diag *d);

#endif
