/* SPDX-License-Identifier: BSD-2-Clause */
/* The operations behind partition, install, add and mkimage, shared so mkimage can chain them. */
#ifndef ANYSECTOR_TOOLS_OPS_H
#define ANYSECTOR_TOOLS_OPS_H

#include <stdbool.h>

#include "common/config.h"
#include "tools/esp/bootmenu.h"
#include "tools/boot/efisig.h"
#include "tools/esp/espfs.h"
#include "tools/dev/hostdev.h"
#include "tools/disk/inspect.h"
#include "tools/disk/layout.h"
#include "tools/dev/mounts.h"
#include "tools/plan/plan.h"
#include "tools/boot/stages.h"

/* Writes a new layout (tables, wiped gaps, formatted ESP). With dry_run only prints it. Returns
 * 0 or an exit code. */
int partition_disk(struct hostdev *h, const struct layout_opts *lo, bool dry_run);

/* Random bytes for GUIDs and disk signatures. */
void random_bytes(void *buf, size_t len);

/* A change to a disk whose table is already there: built as a plan (stage2, ESP files, LBA 0
 * last), then printed (dry run) or journalled and written. */
struct txn {
	struct hostdev *h;
	struct disk_info di;
	struct usage use;           /* what of the disk the running system uses (mounts.h) */
	bool dry_run;
	bool force;
	bool journal;               /* save the old bytes first (mkimage on a new image does not) */
	const char *backup;         /* journal path; NULL: the default */
	unsigned cfg_timeout;       /* the menu timeout of a new anysector.cfg (seconds) */
	struct efi_signing sign;    /* install: --sign-key, --sign-cert, --shim */
	char signed_loader[4200];   /* the temporary signed copy of BOOTX64.EFI ("" none) */
	bool set_timeout;           /* add --timeout: put cfg_timeout into anysector.cfg as well */
	bool replace;               /* add --replace: an entry of the same name is replaced */
	struct boot_menu *menu;     /* the menu before the change (txn_load_menu) */
	char replaced[CFG_MAX_ENTRIES][CFG_NAME_MAX]; /* entries add --replace took out */
	unsigned nreplaced;
	bool allow_empty_menu;      /* remove --force of the last entry */
	struct esp_session esp;
	struct plan pre;            /* stage2 */
	struct plan post;           /* LBA 0 */
	char summary[16][512];      /* what was done, printed after a successful commit */
	unsigned nsummary;
};

struct add_entry {
	enum cfg_kind kind;         /* --kernel, --efi or --chainload */
	const char *kernel;         /* the kernel or EFI application file; chainload: its target */
	unsigned partition;         /* efi: kernel is a path on this FAT partition of the disk, not
				     * a host file to copy (0: copied to the ESP) */
	const char *initrd[CFG_MAX_INITRDS];
	unsigned ninitrd;
	const char *cmdline;
	const char *title;
	const char *name;
	bool make_default;
	bool pin;                   /* --pin: sha256 lines for the kernel and each initrd */
};

/* Each returns 0 or an exit code (util.h).
 * txn_begin reads the table and refuses one that is missing (EXIT_REFUSED), damaged
 * (EXIT_ERRORS) or in use (EXIT_REFUSED); txn_install and txn_add add to the plan; txn_commit
 * prints it (dry run) or journals and writes it. txn_end frees what the others made. */
int txn_begin(struct txn *t, struct hostdev *h);
int txn_install(struct txn *t, const struct stages *s);
int txn_add(struct txn *t, const struct add_entry *entries, unsigned n);
/* remove: the entry called name (anysector.cfg's lines or its /loader/entries file) and the
 * files only it uses; set-default: "default NAME" in anysector.cfg (made when there is none).
 * Both refuse (EXIT_REFUSED) a name the menu does not have; remove refuses to leave the menu
 * empty unless force. */
int txn_remove(struct txn *t, const char *name);
int txn_set_default(struct txn *t, const char *name);

/* Shared by the menu changes (txn.c, txn_menu.c). Each returns 0 or an exit code.
 * txn_open_esp copies the boot partition for mtools; txn_load_menu reads the menu from that
 * copy into t->menu and refuses an anysector.cfg that is not valid; txn_store_config puts a new
 * anysector.cfg onto the copy; txn_check_menu refuses a result the loaders would not accept. */
int txn_open_esp(struct txn *t);
int txn_load_menu(struct txn *t);
int txn_store_config(struct txn *t, const char *text);
int txn_check_menu(struct txn *t);
/* Deletes those of the files (paths on the boot partition) that no entry of the menu now on the
 * copy uses, and then their directories when that leaves them empty (never the root or
 * /loader). A file some entry still uses is kept, and the summary says which. Returns 0 or an
 * exit code. */
int txn_drop_unused(struct txn *t, const char *const *files, unsigned n);
/* A line for the summary printed after a successful commit. */
void txn_summary(struct txn *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int txn_commit(struct txn *t);
void txn_end(struct txn *t);

#endif
