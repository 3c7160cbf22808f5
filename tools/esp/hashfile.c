/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/hashfile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/sha256_fast.h"
#include "tools/base/util.h"

/* A piece large enough that the hash, not the reads, takes the time. */
#define HASH_CHUNK (1u << 20)

int hash_host_file(const char *path, uint8_t out[SHA256_BYTES])
{
	struct sha256_fast s;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return AS_EIO;
	uint8_t *buf = xmalloc(HASH_CHUNK);
	ssize_t n;
	sha256_fast_init(&s);
	while ((n = read(fd, buf, HASH_CHUNK)) > 0)
		sha256_fast_update(&s, buf, (size_t)n);
	free(buf);
	close(fd);
	uint8_t sum[SHA256_BYTES];
	sha256_fast_final(&s, sum);
	if (n < 0)
		return AS_EIO;
	memcpy(out, sum, sizeof sum);
	return 0;
}

/* common/fat_sha256.c's loop with the host's hash (the loaders' stays freestanding). */
int hash_fat_file(struct fat_fs *fs, const struct fat_file *f, uint8_t out[SHA256_BYTES],
		  struct diag *d)
{
	uint8_t *buf = xmalloc(HASH_CHUNK), sum[SHA256_BYTES];
	struct sha256_fast s;
	int rc = 0;

	sha256_fast_init(&s);
	for (uint64_t off = 0; off < f->size && !rc; off += HASH_CHUNK) {
		uint32_t n = (uint32_t)(f->size - off < HASH_CHUNK ? f->size - off : HASH_CHUNK);
		if (!(rc = fat_read(fs, f, off, buf, n, d)))
			sha256_fast_update(&s, buf, n);
	}
	sha256_fast_final(&s, sum);
	free(buf);
	if (!rc)
		memcpy(out, sum, sizeof sum);
	return rc;
}
