/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/fat_sha256.h"

#include "common/errors.h"

int fat_sha256(struct fat_fs *fs, const struct fat_file *f, void *buf, uint32_t chunk,
	       uint8_t out[SHA256_BYTES], struct diag *d)
{
	struct sha256 s;
	int rc = 0;

	if (!chunk)
		return AS_EINVAL;
	sha256_init(&s);
	for (uint32_t off = 0; off < f->size && !rc; off += chunk) {
		uint32_t n = f->size - off < chunk ? f->size - off : chunk;
		if (!(rc = fat_read(fs, f, off, buf, n, d)))
			sha256_update(&s, buf, n);
	}
	if (!rc)
		sha256_final(&s, out);
	return rc;
}
