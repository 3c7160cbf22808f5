/* SPDX-License-Identifier: BSD-2-Clause */
/* The --kernel/--efi/--chainload/--uki/--initrd/--cmdline/--title/--name/--default/--pin
 * options of add and mkimage. Each --kernel (--efi, --chainload, --uki) starts an entry; the
 * other options belong to the latest one (those given before the first belong to the first). */
#ifndef ANYSECTOR_TOOLS_ENTRY_OPTIONS_H
#define ANYSECTOR_TOOLS_ENTRY_OPTIONS_H

#include "tools/cmd/cli.h"
#include "tools/ops/add.h"

struct entry_list {
	struct add_entry e[CFG_MAX_ENTRIES];
	unsigned n;          /* entries with a kernel */
};

/* Handles one entry option (a bad use is reported as a usage error). */
enum opt_result entry_option(int opt, const char *arg, struct entry_list *l, const char *cmd);
/* Checks the entries before any work: options given without any --kernel, options that do not
 * go together, a --name, --title, --cmdline or --efi path that anysector.cfg would not hold as
 * given (common/config.h cfg_value_fault), one name given twice, and every file to copy: a
 * regular file that can be opened. Each refusal is a usage error. Returns 0 or EXIT_USAGE. */
int entry_finish(const struct entry_list *l, const char *cmd, bool kernel_required);

#define ENTRY_LONG_OPTIONS                                           \
	{ "kernel", required_argument, NULL, OPT_KERNEL },           \
	{ "efi", required_argument, NULL, OPT_EFI },                 \
	{ "chainload", required_argument, NULL, OPT_CHAINLOAD },     \
	{ "uki", required_argument, NULL, OPT_UKI },                 \
	{ "partition", required_argument, NULL, OPT_PARTITION },     \
	{ "initrd", required_argument, NULL, OPT_INITRD },           \
	{ "cmdline", required_argument, NULL, OPT_CMDLINE },         \
	{ "title", required_argument, NULL, OPT_TITLE },             \
	{ "name", required_argument, NULL, OPT_NAME },               \
	{ "default", no_argument, NULL, OPT_DEFAULT },               \
	{ "pin", no_argument, NULL, OPT_PIN },                       \
	{ "tries", required_argument, NULL, OPT_TRIES }

#define ENTRY_HELP                                                                           \
	"  --kernel FILE        a Linux kernel to copy to the ESP; each --kernel makes one entry\n" \
	"  --efi FILE           an EFI application to copy to the ESP and start (UEFI only)\n"   \
	"  --chainload PART     start partition PART's boot record, or hdN: BIOS disk 0x80+N's\n" \
	"                       (BIOS only)\n"                                                     \
	"  --uki FILE           a unified kernel image to copy to /EFI/Linux/NAME.efi (both\n" \
	"                       firmwares; its command line and title come from the file)\n"   \
	"  --partition N        with --efi: FILE is a path on FAT partition N of the disk,\n"     \
	"                       started from there (nothing is copied)\n"                         \
	"  --initrd FILE        an initrd for the latest --kernel (may repeat: concatenated)\n"    \
	"  --cmdline TEXT       its kernel command line (--efi: its LoadOptions)\n"              \
	"  --title TEXT         its menu title (default: the entry name)\n"                         \
	"  --name WORD          its entry name (default: from the kernel's file name)\n"            \
	"  --default            make it the default entry\n"                                      \
	"  --tries N            boot counting: N tries (1-255) before it counts as failed and\n"  \
	"                       the next entry boots, until 'anysector bless' marks it good\n"  \
	"  --pin                write the SHA-256 of its kernel (or EFI application, or the\n"   \
	"                       whole unified kernel image) and initrds into the entry: both\n"  \
	"                       loaders refuse to boot a file\n"                                 \
	"                       that no longer matches (docs/SECURITY.md \"Pinned hashes\")\n"

#endif
