/* SPDX-License-Identifier: BSD-2-Clause */
/* A write plan: every sector range an operation will replace, with the new bytes and a note of
 * what they are. Plans are built completely before anything is written, so --dry-run can print
 * them, the journal can save the old bytes first, and execution can read every write back. */
#ifndef ANYSECTOR_TOOLS_PLAN_H
#define ANYSECTOR_TOOLS_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/dev/hostdev.h"

struct write_op {
	uint64_t lba;
	uint64_t count;       /* sectors */
	uint8_t *data;        /* count * lss bytes, owned by the plan unless borrowed */
	bool borrowed;        /* plan_add_ref: another's bytes, never freed nor changed here */
	/* >= 0 (plan_op_from_file): data is also src_fd's bytes at src_off, and the journal and
	 * plan_execute read them from there a piece at a time: data in a mapping of a file, first
	 * touched page by page, costs more than reading the file (-1: use data) */
	int src_fd;
	uint64_t src_off;
	char what[400];
};

struct plan {
	uint32_t lss;
	struct write_op *ops;
	unsigned n, cap;
	long crash_after;     /* test hook: _exit after this many writes; -1 never (plan_init) */
	/* Called by plan_execute before op number pause_at (after the last op when it is n): the
	 * changes made through a mounted boot partition go there, between stage2 and LBA 0.
	 * Returns 0 or an exit code, which stops the plan. */
	int (*pause)(void *ctx);
	void *pause_ctx;
	unsigned pause_at;
};

/* The test-only crash hook: ANYSECTOR_TEST_CRASH_AFTER_WRITE=K makes plan_execute of an install
 * or add stop dead (_exit, no cleanup, no journal removal) right after its write number K (0:
 * after the backup file is saved, before any write), so tests/crash can check every prefix of
 * a plan. Returns K, or -1 when the variable is unset or not a number. */
#define PLAN_CRASH_ENV "ANYSECTOR_TEST_CRASH_AFTER_WRITE"
#define PLAN_CRASH_EXIT 99
long plan_crash_hook(void);

/* The test-only pause hook: ANYSECTOR_TEST_PAUSE_AFTER_WRITE=K makes plan_execute (of any
 * command) stop after its write number K (0: before the first), every lock still held, with
 * one line on stderr, and go on when a line (or end of file) comes on stdin, so a test can look
 * at the disk meanwhile, or kill the process (tests/tools/test_lock.py). */
#define PLAN_PAUSE_ENV "ANYSECTOR_TEST_PAUSE_AFTER_WRITE"

void plan_init(struct plan *p, uint32_t lss);
void plan_free(struct plan *p);
/* Copies count sectors from data. */
void plan_add(struct plan *p, uint64_t lba, uint64_t count, const void *data, const char *what);
/* The same, taking data (malloc'd, count sectors) instead of copying it: a plan of an ESP change
 * holds every byte of the new files, which need not be in memory twice. */
void plan_add_take(struct plan *p, uint64_t lba, uint64_t count, uint8_t *data, const char *what);
/* The same, pointing at data (count sectors) that its owner keeps, unchanged, until the plan
 * is freed: an ESP change's new files, in the mapped temporary copy (tools/esp/espfs.c). */
void plan_add_ref(struct plan *p, uint64_t lba, uint64_t count, const uint8_t *data,
		  const char *what);
/* Op i's bytes are also src_fd's at src_off (struct write_op); src_fd stays open and those
 * bytes unchanged until the plan is freed. */
void plan_op_from_file(struct plan *p, unsigned i, int src_fd, uint64_t src_off);
/* Sectors [k, k + n) of o: in o->data, or read into buf (n sectors) from o's file. NULL when
 * that read fails (errno says why). */
const uint8_t *plan_op_piece(const struct write_op *o, uint32_t lss, uint64_t k, uint64_t n,
			     uint8_t *buf);
/* Moves every op of src to the end of dst (src is left empty). */
void plan_append(struct plan *dst, struct plan *src);
/* Splits each op that shares a sector with another op of other bounds into one op per sector,
 * so that the journal, which checks a recorded range as a whole against what each op wrote
 * there, can tell every state of it (a change in two steps, tools/ops/txn.c). */
void plan_split_overlaps(struct plan *p);
uint64_t plan_sectors(const struct plan *p);
/* One line per op: "write LBA a..b (byte X, N bytes): what". */
void plan_print(const struct plan *p, FILE *f);
/* Writes every op in order; after each: fsync, read back and compare. Returns 0 or an exit code
 * (naming the op that failed). */
int plan_execute(struct hostdev *h, const struct plan *p);

#endif
