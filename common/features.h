/* SPDX-License-Identifier: BSD-2-Clause */
/* What a build of anysector leaves out: the one switch for it. stage2 is built twice
 * (stage2/stage2.mk): stage2.bin with everything, and stage2-gap.bin, built with
 * ANYSECTOR_GAP_BUILD, for the one place where its size is bound, the legacy 62-sector gap
 * before a partition at LBA 63 (31,744 bytes; docs/DESIGN.md "stage2's size budget"). A
 * feature that cannot fit there is a FEATURE_* here, 0 in the gap build, and is named in
 * FEATURES_NOT_IN_GAP (what `check` says such a disk leaves out). Everything else (BOOTX64.EFI,
 * the installer, the tests) is built with every feature. */
#ifndef ANYSECTOR_FEATURES_H
#define ANYSECTOR_FEATURES_H

#ifdef ANYSECTOR_GAP_BUILD
#define FEATURE_MEASURE 0    /* measured boot through the TPM (common/measure.h) */
#define FEATURE_UKI 0        /* unified kernel images under BIOS (common/uki.h): the gap build
			      * neither lists /EFI/Linux nor boots an uki entry */
#define FEATURE_NOTICES 0    /* the boot menu's notices that report nothing broken (a title
			      * that is not UTF-8, which the gap build keeps as its bytes; a
			      * field cut; @saved; a default naming nothing, which the menu shows
			      * as a line; a /loader/entries file hidden by rule: another platform,
			      * a bad name, past the menu's limits): check and list say each */
#define FEATURE_BOOT_STATE 0 /* one-shot boots and boot counting (common/bootcount.h); a disk
			      * with only the legacy gap has no room for the state block anyway */
#define FEATURE_CFG_LOCK 0   /* a locked configuration followed under BIOS (common/cfg_lock.h) */
#define FEATURE_FAST_CHAIN 0 /* the FAT chain walk reading links straight from the FAT window
			      * (common/fat_read.c): speed only, the walk checks the same */
#define FEATURE_DIR_WINDOWS 1 /* directory windows kept in memory (common/fat_dir.c): a path
			       * like /VER/vmlinuz opened again reads neither directory again
			       * with 2; speed only, the lookups read the same entries */
#define FEATURE_FAST_COPY 0  /* stage2's unrolled copy out of its bounce buffer
			      * (stage2/disk.c): speed only, memcpy moves the same bytes */
#define FEATURE_IO_CLOCK 0   /* stage2's account of its time in the BIOS's calls and in its
			      * copies, for make bench (stage2/disk.c): says nothing to a user */
#else
#define FEATURE_MEASURE 1
#define FEATURE_UKI 1
#define FEATURE_NOTICES 1
#define FEATURE_BOOT_STATE 1
#define FEATURE_CFG_LOCK 1
#define FEATURE_FAST_CHAIN 1
#define FEATURE_DIR_WINDOWS 2
#define FEATURE_FAST_COPY 1
#define FEATURE_IO_CLOCK 1
#endif

/* The features the gap build leaves out, as one phrase per feature for `check`. */
/* (FEATURE_NOTICES takes nothing a disk needs: check and list say what the gap build keeps
 * quiet about, so it is not named here; nor are FEATURE_FAST_CHAIN, FEATURE_DIR_WINDOWS and
 * FEATURE_FAST_COPY,
 * which only save time, or FEATURE_IO_CLOCK, which only measures it.) */
#define FEATURES_NOT_IN_GAP "measured boot, one-shot boots, boot counting, unified kernel " \
	"images, a locked configuration"

#endif
