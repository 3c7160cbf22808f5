/* SPDX-License-Identifier: BSD-2-Clause */
/* The install journal (--backup FILE): the original bytes of every sector an operation replaces,
 * saved and synced before the first write, so `anysector restore` can put them all back.
 *
 * Layout (little-endian):
 *   header  64 bytes: "ANYSECTJ", u32 version 2, u32 sector size, u64 device size in bytes,
 *           u32 record count, u32 0, u64 creation time (seconds), u32 the kind of disk
 *           identity and 16 bytes of it (tools/plan/disk_identity.h: 0 none, 1 the GPT's disk
 *           GUID as stored, 2 the MBR disk signature in its first 4), u32 CRC32 of bytes 0..59
 *   record  32 bytes: u64 LBA, u64 sector count, u32 CRC32 of the old bytes, u32 CRC32 of the
 *           bytes the operation writes, u32 CRC32 of the sectors right before and after the
 *           range that no record saves (span_neighbours_crc), u32 CRC32 of the record's first
 *           28 bytes; then the old bytes (count * sector size)
 *   trailer 16 bytes: "ANYSECTE", u32 record count, u32 CRC32 of everything before it
 * Version 1 (no identity, 0 where the neighbours' CRC is) is still restored, without the
 * identity checks. */
#ifndef ANYSECTOR_TOOLS_JOURNAL_H
#define ANYSECTOR_TOOLS_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/dev/hostdev.h"
#include "tools/plan/plan.h"

#define JOURNAL_MAGIC "ANYSECTJ"
#define JOURNAL_END_MAGIC "ANYSECTE"
#define JOURNAL_VERSION 2
#define JOURNAL_HDR_SIZE 64
#define JOURNAL_REC_SIZE 32
#define JOURNAL_TRAILER_SIZE 16

/* A path for a new journal: next to an image ("IMG.anysector-backup"), in the current directory
 * for a device ("anysector-backup-sda"); ".1", ".2", ... when the name is taken. Returns 0 or an
 * exit code (EXIT_ERRORS, reported, when the first thousand names are all taken). */
int journal_default_path(const struct hostdev *h, char *out, size_t cap);

/* The journal path for a command: the given --backup FILE, else journal_default_path; refused
 * (refuse.backup_exists, EXIT_REFUSED) when that file exists, since an earlier backup is never
 * overwritten. Returns 0 or an exit code. */
int journal_pick_path(const struct hostdev *h, const char *given, char *out, size_t cap);

/* Reads the old bytes of every op of p from h and writes the journal to path (which must not
 * exist), synced to disk with its directory. Returns 0 or an exit code. */
int journal_write(const char *path, struct hostdev *h, const struct plan *p);

/* Restores the journal at path onto h (opened; its topology is set here from the journal for an
 * image file). Refuses (without force) a journal made for another size or sector size, for
 * another disk (version 2: another disk GUID or MBR disk signature where the operation left it
 * alone, or every saved range's neighbours changed), and one whose ranges no longer hold what
 * the operation wrote: each such range is named once, and a newer backup of the same series (or
 * the disk's default series) that saved those sectors is named as the one to restore first.
 * A damaged journal is refused. dry_run prints the writes only. Returns 0 or an exit code. */
int journal_restore(struct hostdev *h, const char *path, bool force, bool dry_run);

#endif
