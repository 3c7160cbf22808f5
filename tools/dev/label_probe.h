/* SPDX-License-Identifier: BSD-2-Clause */
/* Disk labels util-linux's libfdisk recognises, asked of libfdisk itself: what fdisk, sfdisk and
 * cfdisk would open. libblkid's low-level probe (the one wipefs uses, tools/dev/probe.c) does
 * not report a BSD disklabel that is not inside a DOS partition, so a disk fdisk shows as
 * "label: bsd" looked empty to it. Asked: sun, sgi and bsd; libfdisk's dos and gpt are found by
 * blkid and anysector's own readers (label_probe.c says why). */
#ifndef ANYSECTOR_TOOLS_LABEL_PROBE_H
#define ANYSECTOR_TOOLS_LABEL_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds of label libfdisk is asked about. */
#define LABEL_KINDS 3

/* A label libfdisk found: its libfdisk name ("bsd") and where it reads its magic, in bytes from
 * the start of fd. */
struct label_found {
	char name[8];
	uint64_t offset, len;
};

/* Asked before each kind is probed: true when the caller has that label already (its name, or
 * anything over its magic's bytes), so libfdisk need not look. */
typedef bool label_named_fn(const char *name, uint64_t offset, uint64_t len, void *ctx);

/* Each label libfdisk finds in [off, off + len) of fd, seen as a device of that size with
 * lss-byte logical sectors, that named() does not have, into out[0..*n). A range that is not
 * the whole of fd is given to libfdisk as a sparse copy of its first MiB, which holds what
 * identifies every label libfdisk knows. Returns 0, or an AS_* code when libfdisk cannot look
 * (the reason goes to why). */
int label_probe(int fd, uint64_t off, uint64_t len, uint32_t lss, label_named_fn *named,
		void *ctx, struct label_found out[LABEL_KINDS], unsigned *n, char *why,
		size_t why_cap);

#endif
