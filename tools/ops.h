/* The operations behind partition, install, add and mkimage, shared so mkimage can chain them. */
#ifndef ANYSECTOR_TOOLS_OPS_H
#define ANYSECTOR_TOOLS_OPS_H

#include <stdbool.h>

#include "common/config.h"
#include "tools/efisig.h"
#include "tools/espfs.h"
#include "tools/hostdev.h"
#include "tools/inspect.h"
#include "tools/layout.h"
#include "tools/plan.h"
#include "tools/stages.h"

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
	bool dry_run;
	bool force;
	bool journal;               /* save the old bytes first (mkimage on a new image does not) */
	const char *backup;         /* journal path; NULL: the default */
	unsigned cfg_timeout;       /* the menu timeout of a new anysector.cfg (seconds) */
	struct efi_signing sign;    /* install: --sign-key, --sign-cert, --shim */
	char signed_loader[4200];   /* the temporary signed copy of BOOTX64.EFI ("" none) */
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
};

/* Each returns 0 or an exit code (util.h).
 * txn_begin reads the table and refuses one that is missing (EXIT_REFUSED), damaged
 * (EXIT_ERRORS) or in use (EXIT_REFUSED); txn_install and txn_add add to the plan; txn_commit
 * prints it (dry run) or journals and writes it. txn_end frees what the others made. */
int txn_begin(struct txn *t, struct hostdev *h);
int txn_install(struct txn *t, const struct stages *s);
int txn_add(struct txn *t, const struct add_entry *entries, unsigned n);
int txn_commit(struct txn *t);
void txn_end(struct txn *t);

#endif
