/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* SEEK_DATA */
#include "tools/base/fileio.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"

/* pread or pwrite until all len bytes have moved: an interrupted or short transfer goes on
 * where it stopped. Returns 0 or AS_EIO (errno says why: EIO when the file ends first). */
static int transfer_full(int fd, uint8_t *p, size_t len, uint64_t off, bool write)
{
	while (len) {
		ssize_t n = write ? pwrite(fd, p, len, (off_t)off) : pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return AS_EIO;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	return transfer_full(fd, buf, len, off, false);
}

int pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	return transfer_full(fd, (uint8_t *)buf, len, off, true); /* pwrite only reads it */
}

bool fd_has_data(int fd, uint64_t off, uint64_t len)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return true;
	off_t d = lseek(fd, (off_t)off, SEEK_DATA);
	if (d < 0)
		return errno != ENXIO; /* ENXIO: only a hole from off to the end */
	return (uint64_t)d < off + len;
}
