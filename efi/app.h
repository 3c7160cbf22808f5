/* SPDX-License-Identifier: BSD-2-Clause */
/* What every part of the EFI application shares: the firmware tables, console output, memory,
 * and readable names for EFI_STATUS values. gnu-efi's library is not used for any of this (its
 * Print and allocation helpers pull in more code than the size goal allows). */
#ifndef ANYSECTOR_EFI_APP_H
#define ANYSECTOR_EFI_APP_H

#include <efi.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/keys.h"

extern EFI_SYSTEM_TABLE *g_st;
extern EFI_BOOT_SERVICES *g_bs;
extern EFI_HANDLE g_image;

/* ---- console (console.c) ----
 * ASCII text with '\n' line ends, widened to UCS-2 and sent to ConOut ('\n' becomes "\r\n").
 * Under OVMF ConOut is mirrored to the serial port. */
void con_puts(const char *s);
void con_write(const char *s, size_t len);
/* Counts the time stamp counter's ticks spent writing to the console from now on. */
void con_clock_start(void);
uint64_t con_clock_ticks(void);
void con_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* UCS-2 text as it comes from the firmware (device paths, file names). */
void con_puts16(const CHAR16 *s);

/* A diag sink that prints every report as a sentence ("warning: ..."); info reports are printed
 * only when verbose is set. */
struct con_diag {
	struct diag d;
	bool verbose;
};
void con_diag_init(struct con_diag *cd, bool verbose);

/* Waits for a key (common/keys.h) for at most tenths/10 seconds (tenths 0: forever); KEY_NONE
 * on timeout. Keys the firmware decoded come as they are; characters (and Esc) go through the
 * escape-sequence decoder, so sequences the firmware's terminal driver passes on undecoded
 * (ESC [ 3 ~, ESC O H under EDK2's PC-ANSI type) are understood as stage2 understands them. */
int con_wait_key(unsigned tenths);
/* A key typed by now, else KEY_NONE at once (no wait). */
int con_poll_key(void);
/* Drops keys typed before now, so a stale keystroke does not choose a menu entry. */
void con_flush_keys(void);

/* ---- memory (memory.c) ---- */
void *efi_alloc(size_t bytes);                /* pool memory, zeroed; NULL on failure */
void efi_free(void *p);                       /* NULL is fine */
/* Page-aligned memory (EfiLoaderData), not zeroed (it holds files of many megabytes that are
 * read over at once); *pages receives the page count for efi_free_pages. */
void *efi_alloc_pages(size_t bytes, UINTN *pages);
/* The same, for a block disk reads fill, placed by common/memplace.h's rule over the firmware's
 * memory map: as high as free memory below 4 GiB goes when it fits there, else as high as free
 * memory below hi goes. NULL when nothing fits; *largest then holds the most bytes that would
 * have below hi (0 when the map cannot be read). */
void *efi_alloc_read_buffer(uint64_t bytes, uint64_t hi, UINTN *pages, uint64_t *largest);
void efi_free_pages(void *p, UINTN pages);

/* ---- status names (status.c) ---- */
/* "EFI_NOT_FOUND" style name of a status, or its hex value. Returns buf or a constant string. */
const char *efi_status_name(EFI_STATUS s, char buf[24]);

#define PAGE_BYTES 4096u

#endif
