/* SPDX-License-Identifier: BSD-2-Clause */
/* Which files on the boot partition are anysector's: the ones it wrote, recorded with their
 * SHA-256 in /anysector.own beside anysector.cfg. add and install replace, and remove deletes,
 * only those (and anysector.cfg and the list itself, which are anysector's by name); a listed
 * file whose bytes changed since is no longer anysector's. A partition without the list (one
 * installed before it existed) gets one by the migration rule of owned_load. */
#ifndef ANYSECTOR_TOOLS_OPS_OWNED_H
#define ANYSECTOR_TOOLS_OPS_OWNED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/sha256.h"
#include "tools/esp/bootmenu.h"
#include "tools/esp/esp_read.h"
#include "tools/esp/esp_session.h"

#define OWNED_FILE_NAME "anysector.own"
/* at most this many lines; the list stays far below the 64 KiB a file read here may take */
#define OWNED_MAX_FILES 512

struct owned_file {                     /* one line: a content of path that is anysector's */
	char path[FAT_PATH_MAX + 32];       /* absolute, '/'-separated, as anysector wrote it */
	uint8_t sha[SHA256_BYTES];
};

struct owned {
	struct owned_file *f;
	unsigned n, cap;
	bool present;       /* the list was on the partition */
	bool changed;       /* the list differs from the partition's: owned_store writes it */
	unsigned migrated;  /* files the migration rule took (no list on the partition) */
};

/* Whether the list's text parses (its lines appended to o); else why is a sentence naming the
 * line. */
bool owned_parse(const char *text, size_t len, struct owned *o, char *why, size_t cap);
/* The list as text (malloc'd): a comment, then "SHA256  PATH" per file, sorted by path. */
char *owned_text(const struct owned *o);

/* Reads /anysector.own through s. Without it, the migration rule: anysector's loader (SBAT
 * component "anysector") at \EFI\BOOT\BOOTX64.EFI, or shim there with anysector's loader as
 * grubx64.efi beside it (then MokManager beside them too), and each file of an anysector.cfg
 * entry of m (m may be NULL) that lies directly in the directory named after the entry,
 * /NAME/FILE, as add puts them (NAME not EFI or loader); each with the SHA-256 it has now.
 * Returns 0 or an exit code (a list that does not parse: EXIT_ERRORS, naming its line). */
int owned_load(struct owned *o, struct esp_session *s, const struct boot_menu *m);
/* Reads /anysector.own of s and parses it into o (zeroed by the caller; o->present when it is
 * there). Whether it is absent or parses; else why is a sentence (it cannot be read, or the
 * line that does not parse). The loaders never read the list: check warns about it
 * (boot.owned), the commands that change the partition refuse (owned_load). */
bool owned_read(struct owned *o, struct esp_session *s, char *why, size_t cap);
void owned_free(struct owned *o);

/* The first line of path (case as FAT compares), or NULL. */
const struct owned_file *owned_find(const struct owned *o, const char *path);
/* Whether path is anysector's by name: /anysector.cfg or the list itself. */
bool owned_by_name(const char *path);
/* What path is to anysector: OWN_ABSENT (no such file), OWN_YES (by name, or listed with the
 * SHA-256 it has now), OWN_CHANGED (listed, bytes changed since), OWN_FOREIGN (not listed). */
enum own_state { OWN_ABSENT, OWN_YES, OWN_CHANGED, OWN_FOREIGN };
enum own_state owned_state(const struct owned *o, struct esp_session *s, const char *path);
/* The words for a state that is not anysector's ("anysector did not write it"). */
const char *owned_why_not(enum own_state st);
/* path was just written by anysector: listed with the SHA-256 it has now on s, and with before
 * (the SHA-256 of the file it replaced, when that was anysector's; NULL: none) too. A path may
 * have several lines, each a content that is anysector's: the list is written before the files
 * it names switch (txn_commit), so a crash between the two leaves the old file or the new one,
 * both listed. Returns 0 or an exit code. */
int owned_record(struct owned *o, struct esp_session *s, const char *path,
		 const uint8_t *before);
/* owned_record with the new contents' SHA-256 given: a file put under another name first, whose
 * switch comes later (tools/ops/lockcfg.c). Returns 0 or an exit code. */
int owned_note(struct owned *o, const char *path, const uint8_t sha[SHA256_BYTES],
	       const uint8_t *before);
/* path is gone: off the list (every line of it). */
void owned_forget(struct owned *o, const char *path);
/* Puts the list onto s when it changed. Returns 0 or an exit code. */
int owned_store(struct owned *o, struct esp_session *s);

/* What an EFI program on s is, as check says it (efisig.h), into buf; "" when it cannot be
 * read. */
const char *owned_describe(struct esp_session *s, const char *path, char *buf, size_t cap);

#endif
