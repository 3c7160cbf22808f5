/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/fsimage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"

#define COPY_CHUNK (1u << 20)

int fs_temp_create(const char *tag, uint64_t bytes, char *path, size_t cap, int *fd)
{
	*fd = -1;
	if (temp_create(tag, path, cap, fd) || ftruncate(*fd, (off_t)bytes)) {
		t_error("format.temp", "cannot create a temporary file %s: %s", path, strerror(errno));
		if (*fd >= 0) {
			close(*fd);
			temp_remove(path);
			*fd = -1;
		}
		return EXIT_ERRORS;
	}
	return 0;
}

int fs_copy_in(struct hostdev *h, int fd, uint64_t first_lba, uint64_t sectors, const char *what)
{
	uint32_t lss = h->topo.lss;
	uint64_t per = COPY_CHUNK / lss;
	uint8_t *a = xmalloc((size_t)(per * lss)), *b = xmalloc((size_t)(per * lss));
	int rc = 0;

	for (uint64_t i = 0; i < sectors && !rc; i += per) {
		uint64_t n = sectors - i < per ? sectors - i : per;
		size_t len = (size_t)(n * lss);
		if (!fd_has_data(fd, i * lss, len))
			continue;
		int err = pread_full(fd, a, len, i * lss);
		const char *step = "reading the new filesystem";
		if (!err) {
			step = "reading the target";
			err = bdev_read(&h->dev, first_lba + i, n, b);
		}
		if (!err && memcmp(a, b, len)) {
			step = "writing";
			err = bdev_write(&h->dev, first_lba + i, n, a);
			if (!err) {
				step = "reading back";
				err = bdev_read(&h->dev, first_lba + i, n, b);
			}
			if (!err && memcmp(a, b, len)) {
				step = "comparing what was written";
				err = AS_EIO;
			}
		}
		if (err) {
			t_error("io.write", "%s: %s at LBA %llu..%llu (%s) failed: %s", h->path, step,
				(unsigned long long)(first_lba + i), (unsigned long long)(first_lba + i + n - 1),
				what, as_strerror(err));
			rc = EXIT_ERRORS;
		}
	}
	free(a);
	free(b);
	return rc;
}
