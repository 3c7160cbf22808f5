/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector.cfg as text, as add changes it (pure: no I/O, no messages). The text is kept as the
 * user wrote it, comments included; only new lines are added and one "default" line replaced.
 * The loaders' parser (common/config.c) checks the result before anything is written. */
#ifndef ANYSECTOR_TOOLS_CFGEDIT_H
#define ANYSECTOR_TOOLS_CFGEDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/config.h"

/* An entry name from a kernel's file name: lower-case letters, digits, '.', '_' and '-';
 * "vmlinuz-6.1.0-18-amd64" gives "6.1.0-18-amd64", a bare "vmlinuz" gives "linux". */
void entry_name_from_file(const char *file, char *out, size_t cap);

/* The entry name for a new entry in text: given when there is one, else one made from the
 * kernel's file name with "-2", "-3", ... added until it is free. Returns false when the given
 * name is taken already (name then holds it). */
bool entry_name_pick(const char *text, const char *given, const char *kernel,
		     char name[CFG_NAME_MAX]);

/* A FAT-safe file name for a host file (spaces and reserved characters become '_'). */
void cfg_file_name(const char *file, char *out, size_t cap);

/* Where add puts a host file of the entry name on the ESP: "/NAME/FILE". */
void entry_file_path(const char *name, const char *file, char *out, size_t cap);

/* text with an entry appended (title NULL: the name, or none for a unified kernel image, which
 * then shows its PRETTY_NAME; cmdline NULL or "": none), malloc'd. kind says which line names
 * `kernel`: kernel, efi, chainload or uki; partition (efi only, 0: none)
 * adds "partition N": the file is on that partition of the boot disk. Bit s of pinned puts
 * "sha256 pin[s]" after the line of the file in pin slot s (common/pin.h: 0 the kernel, 1+i
 * initrd i); pin may be NULL when pinned is 0. */
char *cfg_text_add_entry(const char *text, const char *name, const char *title,
			 enum cfg_kind kind, const char *kernel, unsigned partition,
			 const char *const *initrd, unsigned ninitrd, const char *cmdline,
			 unsigned pinned, const uint8_t (*pin)[SHA256_BYTES]);

/* text with the global line "KEY VALUE" (timeout, default, serial): the line with that key is
 * replaced where it stands (keys match without case), else one is added before the first entry
 * with a blank line after it; value NULL removes the line. malloc'd. */
char *cfg_text_set_key(const char *text, const char *key, const char *value);
/* cfg_text_set_key(text, "default", name). */
char *cfg_text_set_default(const char *text, const char *name);

/* text without the entry called name (matched without case): its "entry" line, its title,
 * kernel, initrd and cmdline lines and the blank and comment lines among them, and the blank
 * line before it; malloc'd, or NULL when there is no such entry. */
char *cfg_text_remove_entry(const char *text, const char *name);
/* text without the line of key (an entry key: "tries") in the entry called name; malloc'd, or
 * NULL when that entry has no such line. */
char *cfg_text_remove_entry_key(const char *text, const char *name, const char *key);

#endif
