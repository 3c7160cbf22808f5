/* SPDX-License-Identifier: BSD-2-Clause */
/* Partition alignment (docs/FIRMWARE.md "Alignment"; Tejun Heo's rule, generalised):
 * a start LBA is aligned iff LBA*LSS ≡ AOFF (mod G), G = lcm(PSS, io_min, sane io_opt[, 1 MiB]).
 * Offset-by-one drives (LSS 512, PSS 4096, AOFF 3584): physically aligned starts are ≡ 7 (mod 8),
 * 1 MiB-aligned ones ≡ 7 (mod 2048), as Windows 7 laid them out. */
#ifndef ANYSECTOR_ALIGN_H
#define ANYSECTOR_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"

struct topology {
	uint32_t lss;      /* logical sector size, bytes */
	uint32_t pss;      /* physical sector size, bytes */
	uint32_t aoff;     /* alignment offset, bytes (Linux alignment_offset) */
	uint32_t io_min;   /* minimum I/O size, bytes; 0 = unknown */
	uint32_t io_opt;   /* optimal I/O size, bytes; 0 = unknown */
	uint64_t sectors;  /* device size in logical sectors */
};

#define ALIGN_MIB (1024u * 1024u)
/* A controller bug reports this optimal I/O size; it means nothing. */
#define ALIGN_BOGUS_IO_OPT 33553920u

/* io_opt if it is usable: nonzero, not the known bogus value, a multiple of PSS; else 0. */
uint32_t align_sane_io_opt(const struct topology *t);

/* The grain G in bytes: lcm(PSS, io_min, sane io_opt), and 1 MiB too when with_mib. */
uint64_t align_grain(const struct topology *t, bool with_mib);

/* AOFF as the alignment math uses it: 0 when it is not a multiple of LSS (it cannot be honoured;
 * align_topology_check says so). */
uint32_t align_effective_offset(const struct topology *t);

/* Whether lba*LSS ≡ AOFF (mod grain). grain is a result of align_grain(). */
bool align_lba_ok(const struct topology *t, uint64_t lba, uint64_t grain);

/* The first aligned LBA >= lba (UINT64_MAX if none exists below 2^64), and the last aligned
 * LBA <= lba (UINT64_MAX if there is none, i.e. lba is below the first aligned LBA). */
uint64_t align_up(const struct topology *t, uint64_t lba, uint64_t grain);
uint64_t align_down(const struct topology *t, uint64_t lba, uint64_t grain);

/* Reports topology values that make no sense (sizes not powers of two, PSS < LSS, AOFF not a
 * multiple of LSS or >= PSS, io_opt ignored as bogus). Returns false on a fatal problem. */
bool align_topology_check(const struct topology *t, struct diag *d);

#endif
