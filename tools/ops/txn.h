/* SPDX-License-Identifier: BSD-2-Clause */
/* A change to a disk whose table is already there (install, add, remove, set-default): built as
 * a write plan, then printed (dry run) or journalled and written. Each operation adds to the
 * plan (tools/ops/install.h, add.h, remove_set_default.h); txn_commit writes it. */
#ifndef ANYSECTOR_TOOLS_TXN_H
#define ANYSECTOR_TOOLS_TXN_H

#include <stdbool.h>

#include "common/cfg_lock.h"
#include "common/config.h"
#include "tools/boot/efisig.h"
#include "tools/dev/hostdev.h"
#include "tools/dev/mounts.h"
#include "tools/disk/inspect.h"
#include "tools/esp/bootmenu.h"
#include "tools/esp/espfs.h"
#include "tools/ops/owned.h"
#include "tools/plan/plan.h"

/* The firmware boot entry of an install beside another system: Boot#### pointing at the
 * loader in \EFI\anysector\, first in BootOrder; written through efivarfs after the disk
 * (tools/ops/install_efi.h, tools/dev/efivars.h). */
struct nvram_plan {
	bool active;                /* a running UEFI system whose firmware sees the target */
	const char *dir;            /* its efivarfs directory */
	uint16_t id;                /* Boot#### */
	bool write_option, write_order;
	uint8_t option[1024];
	size_t option_len;
	uint16_t order[256], old_order[256];
	unsigned norder, nold;
	char loader[FAT_PATH_MAX];  /* the path the entry starts */
};

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
	struct efi_signing sign;    /* install: --sign-key, --sign-cert, --shim; add, remove,
				     * set-default: --sign-key, --sign-cert for a locked menu */
	bool lock_config;           /* install, mkimage --lock-config (tools/ops/lockcfg.h) */
	bool relock;                /* the loaders are locked to the new anysector.cfg at the end */
	struct cfg_lock lock_before;/* what the loaders on the ESP held before the change */
	uint8_t cfg_before[SHA256_BYTES]; /* anysector.cfg's SHA-256 before the change */
	/* ESP files whose new contents go onto the disk before the rest of the ESP's change (the
	 * re-signed loaders of a locked menu, so that no crash leaves the old loader with the new
	 * anysector.cfg), and their signed copies (tools/ops/lockcfg.h) */
	char first[4][FAT_PATH_MAX];
	char first_src[4][4200];
	unsigned nfirst;
	bool relock_done;           /* the loaders are signed; the second pass only checks */
	uint8_t relock_hash[SHA256_BYTES];  /* ... for this anysector.cfg */
	/* the boot partition after the change's first step (those files and the ownership list):
	 * txn_commit writes the disk to it, then it to the whole change */
	struct esp_session mid;
	bool esp_whole;             /* txn_open_esp copies the ESP whole (the second pass) */
	char signed_loader[4200];   /* the temporary signed copy of BOOTX64.EFI ("" none) */
	bool uefi_only;             /* install --uefi-only: no stage1, no stage2 */
	bool installed;             /* install is part of this change (mkimage): the disk does not
				     * hold its stage2 yet */
	bool installed_gap;         /* ... and that stage2 is the legacy-gap build */
	uint64_t state_planned;     /* ... and the boot state block it records (0: none) */
	bool no_nvram;              /* install --no-nvram: no firmware boot entry */
	struct nvram_plan nv;       /* the firmware boot entry install writes */
	/* set by an operation with more to do than the disk's writes (install_efi.c): said by a
	 * dry run after the plan, done after the plan's writes (0 or an exit code) */
	void (*print_more)(const struct txn *t);
	int (*after_writes)(struct txn *t);
	bool set_timeout;           /* add --timeout: put cfg_timeout into anysector.cfg as well */
	bool replace;               /* add --replace: an entry of the same name is replaced */
	struct boot_menu *menu;     /* the menu before the change (txn_load_menu) */
	char replaced[CFG_MAX_ENTRIES][CFG_NAME_MAX]; /* entries add --replace took out */
	unsigned nreplaced;
	char added[CFG_MAX_ENTRIES][CFG_NAME_MAX]; /* the names of the entries add wrote */
	unsigned nadded;
	/* the names remove's entry has in the boot state block: its own, and a file's name */
	char removed[2][FAT_NAME_MAX + 1];
	unsigned nremoved;
	bool allow_empty_menu;      /* remove --force of the last entry */
	struct esp_session esp;
	uint64_t esp_new_bytes;     /* the files the operation will copy onto it (txn_expect) */
	struct owned own;           /* which files of the ESP are anysector's (tools/ops/owned.h) */
	bool own_loaded;
	struct plan pre;            /* stage2 */
	struct plan post;           /* LBA 0 */
	char saved[4][FAT_PATH_MAX + 32]; /* install --force: foreign files replaced through a
				     * mounted ESP, copied beside the backup file first */
	unsigned nsaved;
	char summary[16][512];      /* what was done, printed after a successful commit */
	unsigned nsummary;
};

/* Each returns 0 or an exit code (tools/base/exit_codes.h).
 * txn_begin reads the table and refuses one that is missing (EXIT_REFUSED), damaged
 * (EXIT_ERRORS) or in use (EXIT_REFUSED); the operations add to the plan; txn_commit prints it
 * (dry run) or journals and writes it. txn_end frees what the others made. */
int txn_begin(struct txn *t, struct hostdev *h);
/* Opens the boot partition for the change: a copy for mtools, or, while the running system has
 * it mounted, its filesystem (tools/esp/espdir.h); and reads which of its files are
 * anysector's (tools/ops/owned.h) before anything changes. */
int txn_open_esp(struct txn *t);
/* Before txn_open_esp: the operation will copy the host file src onto the boot partition (its
 * size counts in the temporary space esp_open checks for). */
void txn_expect(struct txn *t, const char *src);
/* Copies a host file to dst on the boot partition and lists it as anysector's. */
int txn_put_owned(struct txn *t, const char *src, const char *dst);
int txn_commit(struct txn *t);
void txn_end(struct txn *t);
/* Drops the boot partition's session and what the operation built on it (the menu, the
 * ownership list, the summary), so that the operation can run again from the disk as it is
 * (a locked menu's second pass, tools/ops/lockcfg.h). */
void txn_esp_reset(struct txn *t);

/* Whether dst exists on the boot partition and is not anysector's (*st gets the state). */
bool txn_foreign(struct txn *t, const char *dst, enum own_state *st);
/* A line for the summary printed after a successful commit. */
void txn_summary(struct txn *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
