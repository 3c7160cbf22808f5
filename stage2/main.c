/* SPDX-License-Identifier: BSD-2-Clause */
/* stage2's boot flow, once unpack.c has checked the image and unpacked this body: A20, the disk,
 * the boot partition, the configuration, the menu, Linux. Every failure is a sentence on the screen and COM1; a failed boot returns to the
 * menu, a failure before there is one halts with the reason. */
#include "common/bootcount.h"
#include "common/bootinfo.h"
#include "common/errors.h"
#include "common/features.h"
#include "common/le.h"
#include "common/str.h"
#include "stage2/a20.h"
#include "stage2/bootvol.h"
#include "stage2/chain.h"
#include "stage2/console.h"
#include "stage2/disk.h"
#include "stage2/layout.h"
#include "stage2/linuxboot.h"
#include "stage2/menu.h"
#include "stage2/tpm.h"

void stage2_main(uint32_t drive, uint32_t stage1_bps);

static struct blockdev disk;
static struct blockdev part;
static struct fat_fs fs;
/* The menu (entries and their text, ~62 KiB) has its own 64 KiB below 1 MiB (stage2/layout.h):
 * in the bss it would crowd the bounce buffer. */
static struct cfg cfg __attribute__((section(".menu")));
_Static_assert(sizeof cfg <= 0x10000, "the menu fits the 64 KiB linker.ld gives .menu");
static struct stage2_identity id;
static struct bstate_io state;  /* the boot state block (8 KiB: both copies) */

void stage2_main(uint32_t drive, uint32_t stage1_bps)
{
	const char *how;
	int rc;

	con_init();
	con_printf("\nanysector stage2 (drive 0x%02x, stage1 read %u-byte sectors)\n", drive,
		   stage1_bps);
	/* stage2 itself is measured before it reads anything it acts on */
	struct measure *m = tpm_measure();
	if (!(how = a20_enable()))
		halt_with("cannot enable the A20 gate (BIOS, keyboard controller and port 0x92 all "
			  "failed), so memory above 1 MiB is out of reach");
	if (how[0] != 'a')
		con_printf("A20: enabled through the %s\n", how);

	if (int13_open(&disk, (uint8_t)drive, stage1_bps))
		halt_with("the boot disk 0x%02x cannot be used", drive);
	con_printf("disk 0x%02x: %u-byte sectors, %llu sectors\n", drive, disk.sector_size,
		   (unsigned long long)disk.sectors);

	stage2_identity_get(__image_start, &id);
	if (!id.config_path[0])
		str_copy(id.config_path, sizeof id.config_path, "/" CFG_FILE_NAME);
	if (bootvol_find(&disk, &id, &part))
		halt_with("no boot partition, so nothing to boot");
	if ((rc = fat_mount(&part, &fs, &con_diag)))
		halt_with("the boot partition has no FAT filesystem stage2 can read (%s)",
			  as_strerror(rc));
	if (bootvol_config(&fs, id.config_path, &cfg, m))
		halt_with("no usable configuration in %s", id.config_path);
	con_serial(cfg.serial_baud);
	if (FEATURE_BOOT_STATE) {
		state.live = -1;
		if (id.state_offset && (rc = bstate_load(&state, &disk, id.state_offset)))
			con_printf("the boot state block at byte %u cannot be read (%s)\n",
				   (unsigned)id.state_offset, as_strerror(rc));
		bootcount_apply(&cfg, &state, BSTATE_FW_BIOS);
	}

	for (bool first = true;; first = false) {
		const char *cmdline;
		int i = menu_choose(&cfg, first, &cmdline);
		/* a locked configuration boots only pinned entries, as BOOTX64.EFI does */
		if (FEATURE_CFG_LOCK && cfg_lock_entry(bootvol_lock(), &cfg.entries[i], &con_diag))
			continue;
		if (FEATURE_BOOT_STATE && (rc = bootcount_before(&cfg, (unsigned)i, &state,
								 BSTATE_FW_BIOS)))
			con_printf("the boot state block could not be written (%s)\n",
				   as_strerror(rc));
		if (cfg.entries[i].kind == CFG_KIND_CHAIN)
			rc = chain_boot(&disk, (uint8_t)drive, &cfg.entries[i], m);
		else
			rc = linux_boot(&fs, &cfg.entries[i], cmdline, m);
		/* Never the same failing entry again by itself: the menu now waits for a key. */
		con_printf("booting %u) failed: %s\n", i + 1, as_strerror(rc));
	}
}
