/* SPDX-License-Identifier: BSD-2-Clause */
/* A change to a disk whose table is already there (install, add, remove, set-default): built as
 * a write plan, then printed (dry run) or journalled and written. Each operation adds to the
 * plan (tools/ops/install.h, add.h, remove_set_default.h); txn_commit writes it. */
#ifndef ANYSECTOR_TOOLS_TXN_H
#define ANYSECTOR_TOOLS_TXN_H

#include <stdbool.h>

#include "common/config.h"
#include "tools/boot/efisig.h"
#include "tools/dev/hostdev.h"
#include "tools/dev/mounts.h"
#include "tools/disk/inspect.h"
#include "tools/esp/bootmenu.h"
#include "tools/esp/espfs.h"
#include "tools/plan/plan.h"

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

/* Each returns 0 or an exit code (tools/base/exit_codes.h).
 * txn_begin reads the table and refuses one that is missing (EXIT_REFUSED), damaged
 * (EXIT_ERRORS) or in use (EXIT_REFUSED); the operations add to the plan; txn_commit prints it
 * (dry run) or journals and writes it. txn_end frees what the others made. */
int txn_begin(struct txn *t, struct hostdev *h);
/* Opens the boot partition for the change: a copy for mtools, or, while the running system has
 * it mounted, its filesystem (tools/esp/espdir.h). */
int txn_open_esp(struct txn *t);
int txn_commit(struct txn *t);
void txn_end(struct txn *t);

/* A line for the summary printed after a successful commit. */
void txn_summary(struct txn *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
