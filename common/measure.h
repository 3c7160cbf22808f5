/* SPDX-License-Identifier: BSD-2-Clause */
/* Measured boot: what both loaders measure, into which PCR, with which event data
 * (docs/SECURITY.md "Measured boot" has the table and the reasons). The TPM half is each
 * loader's own: efi/measure.c through EFI_TCG2_PROTOCOL, stage2/tpm.c through SeaBIOS's TCG
 * interface; the code that reads the menu's files (common/cfg_fat.c, common/bls_fat.c) and
 * the loaders' boot paths tell it what to measure through struct measure. */
#ifndef ANYSECTOR_MEASURE_H
#define ANYSECTOR_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "common/features.h"

/* stage2 as stage1 loaded it: boot loader code, where the firmware put stage1 (the MBR) and,
 * under UEFI, BOOTX64.EFI. BIOS only. */
#define MEASURE_PCR_LOADER 4u
/* anysector.cfg, every Boot Loader Specification entry file and loader.conf: the boot loader's
 * configuration, systemd-boot's PCR for loader.conf and the TCG's for boot manager data. */
#define MEASURE_PCR_CONFIG 5u
/* Files handed on that nobody else measures: under BIOS the kernel, every initrd and a
 * chainloaded boot record (under UEFI the firmware measures the kernel and Linux's EFI stub
 * its initrd). */
#define MEASURE_PCR_FILES 9u
/* The command line the kernel or EFI application gets, after any edit: systemd-boot's PCR. */
#define MEASURE_PCR_CMDLINE 12u

/* Every event anysector logs is an EV_IPL (TCG PC Client: events of the boot loader). */
#define MEASURE_EV_IPL 0x0000000Du

/* Longest event description ("anysector ... PATH" and its NUL). */
#define MEASURE_DESC_MAX 160u

struct measure {
	/* Extends pcr with the digest of a[0..alen) followed by b[0..blen) (a file in two pieces
	 * in memory: stage2's kernel; else blen 0) and logs an EV_IPL event whose data is
	 * event[0..event_len). A failure is the loader's own report; the boot goes on (a PCR
	 * that missed an event no longer matches a policy, so nothing sealed unseals). */
	void (*extend)(struct measure *m, unsigned pcr, const void *a, size_t alen, const void *b,
		       size_t blen, const void *event, size_t event_len);
};

#if FEATURE_MEASURE
/* Measures a file's bytes into pcr with the description "anysector WHAT PATH" (ASCII, logged
 * with its NUL). m NULL: nothing. */
void measure_file(struct measure *m, unsigned pcr, const char *what, const char *path,
		  const void *a, size_t alen, const void *b, size_t blen);
#else
/* A build without measured boot (common/features.h): no code at all. */
static inline void measure_file(struct measure *m, unsigned pcr, const char *what,
				const char *path, const void *a, size_t alen, const void *b,
				size_t blen)
{
	(void)m, (void)pcr, (void)what, (void)path, (void)a, (void)alen, (void)b, (void)blen;
}
#endif

/* The command line as UEFI hands it on (LoadOptions) and systemd-boot measures it: each byte
 * one UTF-16LE code unit, then a NUL unit. Writes 2 * (strlen(s) + 1) bytes to out, at most
 * cap (the rest is cut); returns the bytes written. */
size_t measure_utf16(const char *s, uint8_t *out, size_t cap);

/* Measures the command line into MEASURE_PCR_CMDLINE as systemd-boot does: utf16 is its
 * measure_utf16 form (what LoadOptions holds), bytes long with the NUL unit; the digest covers
 * those bytes and they are the event data too. m NULL: nothing. */
static inline void measure_cmdline(struct measure *m, const void *utf16, size_t bytes)
{
	if (FEATURE_MEASURE && m)
		m->extend(m, MEASURE_PCR_CMDLINE, utf16, bytes, 0, 0, utf16, bytes);
}

#endif
