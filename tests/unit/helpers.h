/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared helpers for the cmocka unit tests. */
#ifndef ANYSECTOR_TEST_HELPERS_H
#define ANYSECTOR_TEST_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/blockdev.h"
#include "common/config.h"
#include "common/diag.h"
#include "common/memdisk.h"

/* Collects every diagnostic; tests assert on codes and sentences. */
#define CAPTURE_MAX 64
struct capture {
	struct diag diag;
	unsigned n;
	struct {
		enum diag_level level;
		char code[48];
		char msg[DIAG_MSG_MAX];
	} items[CAPTURE_MAX];
};

void capture_init(struct capture *c);
/* True when some captured item has this code (and, when substr is non-NULL, its sentence
 * contains substr). */
int capture_has(const struct capture *c, const char *code, const char *substr);
/* Prints everything captured (for failing tests). */
void capture_dump(const struct capture *c);
/* Fails the test, showing what was captured, unless the code (and substring) was reported. */
#define assert_reported(c, code, substr)                                          \
	do {                                                                      \
		if (!capture_has((c), (code), (substr))) {                       \
			capture_dump(c);                                          \
			fail_msg("expected diagnostic %s (%s)", (code),           \
				 (substr) ? (const char *)(substr) : "any text"); \
		}                                                                 \
	} while (0)

/* anysector.cfg text parsed into c, every diagnostic into cap (set up here). Returns cfg_parse's
 * answer. */
int parse_cfg(const char *text, struct cfg *c, struct capture *cap);
/* Fails the test unless text is refused (AS_ECORRUPT) with exactly one error, of this code,
 * whose sentence contains want. Returns what the parser left (until the next call). */
const struct cfg *cfg_rejected(const char *text, const char *code, const char *want);

/* A new directory $BUILD/sub/tag.XXXXXX (BUILD from the environment, "build" without it; sub is
 * made when missing), its path into dir[cap]. Returns 0, or -1 (errno says why; dir is then
 * ""). */
int test_workdir(char *dir, size_t cap, const char *sub, const char *tag);

/* A memory disk of `size` bytes (zeroed) with the given geometry; free with test_disk_free. */
struct test_disk {
	struct blockdev dev;
	struct memdisk md;
	uint8_t *scratch;
};
struct test_disk *test_disk_new(uint64_t size, uint32_t lss, uint32_t pss, uint32_t aoff,
				uint32_t max_io);
void test_disk_free(struct test_disk *d);

/* Reads a whole file into a malloc'd buffer (NULL on failure); *len gets its size. */
uint8_t *read_file(const char *path, size_t *len);
/* Runs a shell command; returns its exit status (-1 if it could not run). */
int run_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether a program is on PATH. */
int have_program(const char *name);

#endif
