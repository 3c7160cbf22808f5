/* SPDX-License-Identifier: BSD-2-Clause */
/* Whole reads and writes at a byte offset of an open file or device, for the block driver
 * (tools/dev/hostdev.c), journals, and copies of sparse images. */
#ifndef ANYSECTOR_TOOLS_FILEIO_H
#define ANYSECTOR_TOOLS_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads / writes bytes at an absolute offset (no sector rounding; for files and journals).
 * Returns 0 or AS_EIO (errno says why). */
int pread_full(int fd, void *buf, size_t len, uint64_t off);
int pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/* False only when [off, off + len) of a regular file is certainly a hole (reads as zeros without
 * being stored); lets copies and comparisons of sparse images skip what is not there. */
bool fd_has_data(int fd, uint64_t off, uint64_t len);

#endif
