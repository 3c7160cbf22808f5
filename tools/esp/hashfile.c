/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/hashfile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/util.h"

/* A piece large enough that the hash, not the reads, takes the time. */
#define HASH_CHUNK (1u << 20)

int host_file_sha256(const char *path, uint8_t out[SHA256_BYTES])
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

int fat_file_sha256(struct fat_fs *fs, const struct fat_file *f, uint8_t out[SHA256_BYTES],
		    struct diag *d)
{
	struct sha256 s;
	uint8_t *buf = xmalloc(HASH_CHUNK);
	int rc = 0;

	sha256_init(&s);
	for (uint64_t off = 0; off < f->size && !rc; off += HASH_CHUNK) {
		size_t n = f->size - off < HASH_CHUNK ? (size_t)(f->size - off) : HASH_CHUNK;
		if (!(rc = fat_read(fs, f, off, buf, n, d)))
			sha256_update(&s, buf, n);
	}
	free(buf);
	if (!rc)
		sha256_final(&s, out);
	return rc;
}
