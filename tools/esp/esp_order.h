/* SPDX-License-Identifier: BSD-2-Clause */
/* The order of the ESP's writes: the sectors that differ between the disk (state S0) and the
 * copy mtools changed (the final state S2) become ops of a write plan, grouped by the role of
 * each sector and ordered so that every prefix is a valid filesystem in which each changed file
 * reads whole, old or new:
 *
 *   1. data sectors in clusters that are free in S0 (new file contents, new directory clusters):
 *      nothing refers to them yet, so the filesystem still reads as S0;
 *   2. FAT sectors in an intermediate state SI0: the entries of clusters free in S0 and in use
 *      in S2 take their S2 values, all others keep S0's. The new chains exist whole, nothing
 *      refers to them: at worst allocated clusters that belong to no file yet (lost clusters,
 *      not a wrong byte);
 *   2b. FAT sectors in state SI: also the entries in use in both states that S2 changes, such
 *      as the last cluster of a directory that grew, now linked to its new cluster (whole since
 *      1 and 2). Each such entry is one link switched from one whole chain to another. The old
 *      chains are all still there;
 *   3. directory sectors (the FAT12/16 root, and sectors of clusters in use in S0): each is one
 *      sector, written whole, up to twice. First every sector that adds or changes a live
 *      entry, in LBA order, so a long name's entries are in place before the short entry that
 *      ends them, in a middle state: what it adds and changes, but, when the change replaces
 *      the last entry (below), the entries S2 deletes still there and the last entry as in S0
 *      (without it, a file renamed in one sector, such as bless's /loader/entries file, stays
 *      one switch). A replaced file (esp_put: new copy under a
 *      temporary name, old one deleted, new one renamed) switches here, in the sector of its
 *      new entry (an old entry of the same short name in that sector is not kept); if the old
 *      entry lives in another sector, both names briefly exist, each pointing at a whole
 *      chain;
 *   3b. the sectors of the root directory that hold the last entry (esp_geom.last_name:
 *      anysector.cfg, which names the files the others add), in their S2 state, in LBA order:
 *      the file that names the new files switches once they are all there, and before any
 *      file the old one names is deleted (before, the root's sector went first among the
 *      adding ones, so a crash could leave anysector.cfg naming a kernel not yet on the disk,
 *      or, when the kernel's sector also deleted the old one, neither);
 *   3c. the sectors that delete entries, in S2 state, in reverse order, so a short entry goes
 *      before its long-name entries;
 *   4. FAT sectors from SI to S2: the old chains are freed; nothing refers to them any more;
 *   5. the rest (the reserved area: FSInfo's free-cluster hints, which readers do not trust).
 *
 * Assumed: a one-sector write lands whole or not at all (what drives promise per physical
 * sector; a 512e drive's read-modify-write of its 4 KiB sector is the drive's to make safe).
 * Not covered: a cluster in use in S0 that is not a directory but changed in place (esp_put
 * never does that, and the fence of esp_fence.h keeps mtools from giving a new file clusters
 * the change freed; such sectors would go with step 3, unordered).
 *
 * A FAT sector may be written up to three times (SI0, SI, S2), a directory sector twice (its
 * middle state, S2); the journal accepts any of those contents for it. Each directory sector is its own op, so tests/crash stops after each
 * of them; other neighbouring sectors of one step share an op (any part of such a step is as
 * safe as all).
 *
 * Everything here is pure (no I/O, no messages): tools/esp/espfs.c reads both sides and calls
 * it. */
#ifndef ANYSECTOR_TOOLS_ESP_ORDER_H
#define ANYSECTOR_TOOLS_ESP_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/fat.h"
#include "tools/plan/plan.h"

/* What a changed sector is, in the order the roles are written. */
enum sector_role {
	SECTOR_NEW_DATA,     /* 1 */
	SECTOR_FAT_NEW,      /* 2: S0 -> SI0 */
	SECTOR_FAT_RELINK,   /* 2b: SI0 -> SI */
	SECTOR_DIR_ADD,      /* 3, forwards */
	SECTOR_DIR_SWITCH,   /* 3b, forwards */
	SECTOR_DIR_DEL,      /* 3c, backwards */
	SECTOR_FAT_FREE,     /* 4: SI -> S2 */
	SECTOR_OTHER,        /* 5 */
	SECTOR_NONE,         /* no write */
};

/* Where a FAT filesystem's parts lie, in bytes from the start of its partition. */
struct esp_geom {
	enum fat_type type;
	uint64_t fats, fats_end;     /* every FAT copy */
	uint64_t root, data, data_end;
	uint64_t cluster;            /* bytes */
	uint32_t active;             /* the FAT copy readers use */
	uint32_t num_fats;
	uint32_t clusters;           /* valid numbers: 2..clusters+1 */
	uint64_t fat_bytes;          /* one copy */
	uint32_t root_cluster;       /* FAT32: the root directory's first cluster; else 0 */
	/* the root directory's entry switched last (step 3b), when has_last (the change replaces
	 * it): its short name as stored and its first cluster in S2 (the caller sets them;
	 * esp_geom_of clears has_last) */
	bool has_last;
	uint8_t last_name[11];
	uint32_t last_cluster;
};

void esp_geom_of(const struct fat_fs *fs, struct esp_geom *g);

/* Entry i of one FAT copy (FAT32's four reserved top bits left out); 0 past its end. */
uint32_t esp_fat_get(const struct esp_geom *g, const uint8_t *fat, uint32_t i);
/* Copies the bits of entry i from src to dst (one FAT copy each). */
void esp_fat_take(const struct esp_geom *g, uint8_t *dst, const uint8_t *src, uint32_t i);
/* Sets entry i of one FAT copy to v (FAT32's four reserved top bits kept); nothing past its
 * end. */
void esp_fat_set(const struct esp_geom *g, uint8_t *fat, uint32_t i, uint32_t v);

/* The FAT's intermediate states, from old (S0) and new (S2), every copy (fats_end - fats
 * bytes each): mid0 is SI0, mid is SI (see above). */
void esp_fat_states(const struct esp_geom *g, const uint8_t *old, const uint8_t *new,
		    uint8_t *mid0, uint8_t *mid);
/* The bytes [off, off + len) of esp_fat_states' mid0 and mid alone (off and len offsets into
 * the FATs, whole entries), the rest of both untouched: FAT16 and FAT32 only, whose entries
 * never share a byte. Where old and new have the same bytes, so have mid0 and mid. */
void esp_fat_states_range(const struct esp_geom *g, const uint8_t *old, const uint8_t *new,
			  uint8_t *mid0, uint8_t *mid, uint64_t off, uint64_t len);

/* The largest sector a directory sector's middle state is made for (a larger one is written
 * once, as before step 3 had a middle state). */
#define ESP_DIR_SECTOR_MAX 4096u

/* The writes one sector needs: up to three (a FAT sector's steps, a directory sector's middle
 * and new states), each a role and the bytes. */
struct sector_writes {
	enum sector_role role[3];
	const uint8_t *data[3];
	uint8_t dir_mid[ESP_DIR_SECTOR_MAX];   /* a directory sector's middle state (step 3) */
	unsigned steps;              /* FAT sectors: a bit for each FAT step that writes it, else 0 */
	/* data[0] stays as it is until the plan is freed (the mapped copy, tools/esp/espfs.c):
	 * new contents then refer to it instead of a copy (set by the caller, not classified) */
	bool kept;
};

/* Classifying sectors: the sector at byte `at` of the partition, lss bytes of old (S0) and new
 * (S2), and for a FAT sector mid0/mid (the same bytes of SI0 and SI; else NULL). fat_active is
 * S0's active FAT, which says which clusters were in use. Returns false when the sector needs
 * no write. */
bool esp_classify_sector(const struct esp_geom *g, const uint8_t *fat_active, uint64_t at,
			 uint32_t lss, const uint8_t *old, const uint8_t *new, const uint8_t *mid0,
			 const uint8_t *mid, struct sector_writes *w);

/* The writes collected from the sectors before they are ordered: new contents in free clusters
 * (nearly every byte of an add: a kernel and its initrds) in runs of neighbouring sectors, each
 * run one buffer that becomes its op's bytes as it is; every other write one sector each. */
struct esp_writes {
	struct esp_write *w;
	size_t n, cap;
	struct esp_run *runs;
	size_t nruns, runs_cap;
	uint32_t lss;
};

void esp_writes_init(struct esp_writes *ws, uint32_t lss);
/* Adds the writes of the sector at lba (copies its bytes, or for new contents that are kept
 * refers to them). New contents added in LBA order (espfs.c's diff) grow one run; any order
 * gives the same plan. */
void esp_writes_add(struct esp_writes *ws, uint64_t lba, const struct sector_writes *sw);
/* Adds count sectors of new contents from lba on (data: their bytes, kept as esp_writes_add
 * keeps them): clusters free on the disk that the change puts in use, written whole without
 * comparing them with what the disk holds there (espfs.c's sparse diff). */
void esp_writes_add_new(struct esp_writes *ws, uint64_t lba, const uint8_t *data, uint64_t count,
			bool kept);
/* Building the plan: orders the writes (roles in order, deletions backwards) and adds them to
 * p as ops, neighbours of one role sharing an op except directory sectors, and FAT sectors only
 * with those of the same steps; each op's note is "what: <role>". The sectors' bytes move into
 * the plan (ws keeps the list, its data freed: the bytes are in memory once; a run's buffer, or
 * the kept bytes it refers to, is its op's, not copied). */
void esp_writes_plan(struct esp_writes *ws, const char *what, struct plan *p);
void esp_writes_free(struct esp_writes *ws);

#endif
