/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/hashfile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/fat_sha256.h"
#include "tools/base/util.h"

/* A piece large enough that the hash, not the reads, takes the time. */
#define HASH_CHUNK (1u << 20)

int hash_host_file(const char *path, uint8_t out[SHA256_BYTES])
{
	struct sha256 s;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return AS_EIO;
	uint8_t *buf = xmalloc(HASH_CHUNK);
	ssize_t n;
	sha256_init(&s);
	while ((n = read(fd, buf, HASH_CHUNK)) > 0)
		sha256_update(&s, buf, (size_t)n);
	free(buf);
	close(fd);
	if (n < 0)
		return AS_EIO;
	sha256_final(&s, out);
	return 0;
}

int hash_fat_file(struct fat_fs *fs, const struct fat_file *f, uint8_t out[SHA256_BYTES],
		  struct diag *d)
{
	uint8_t *buf = xmalloc(HASH_CHUNK);
	int rc = fat_sha256(fs, f, buf, HASH_CHUNK, out, d);
	free(buf);
	return rc;
}
