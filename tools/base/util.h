/* SPDX-License-Identifier: BSD-2-Clause */
/* Small host helpers shared by the installer: number and size parsing, human-readable sizes,
 * checked allocation. (How functions return, and the exit codes: tools/base/exit_codes.h.) */
#ifndef ANYSECTOR_TOOLS_UTIL_H
#define ANYSECTOR_TOOLS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "4096", "0x1000", "64M", "64MiB", "3TB" (decimal), "1.5G" is refused. K/M/G/T/P and
 * KiB/MiB/... are powers of 1024, KB/MB/GB/TB/PB powers of 1000 (any case).
 * A bare number is bytes. */
bool parse_size(const char *s, uint64_t *out);
/* A plain unsigned number (decimal or 0x hex) that fits 32 bits. */
bool parse_u32(const char *s, uint32_t *out);

/* "260.0 MiB", "3.0 TB"-style text for a byte count (binary units, one decimal). */
const char *human_size(uint64_t bytes, char *buf, size_t cap);

void *xmalloc(size_t n);
/* xmalloc for a buffer of megabytes filled whole (a big ESP's FATs), asked to be backed by
 * transparent huge pages where it is 2 MiB or more: its first touch then faults once per 2 MiB
 * instead of once per 4 KiB page, which costs microseconds a fault on virtual machines that
 * shadow the page tables (about 12 us here: 25 ms for the 8 MiB of a 4 GiB ESP's FATs). Freed
 * with free(). */
void *xmalloc_huge(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

bool all_zero(const void *buf, size_t len);

#endif
