/* SPDX-License-Identifier: BSD-2-Clause */
/* SHA-256 (common/sha256.h's results) for the host's large buffers: the ownership list hashes
 * every file anysector writes to the ESP, a kernel and initrd of 80 MiB in one add, which the
 * loaders' freestanding common/sha256.c does at about 200 MB/s. This one is libcrypto's (SHA-NI
 * or vector code where the CPU has them), the same digests (tests/unit/test_tools_sha256_fast.c). */
#ifndef ANYSECTOR_TOOLS_SHA256_FAST_H
#define ANYSECTOR_TOOLS_SHA256_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "common/sha256.h"

struct sha256_fast {
	void *ctx;            /* libcrypto's EVP_MD_CTX */
};

/* As sha256_init/_update/_final; _final frees what _init took. Out of memory exits as xmalloc
 * does. */
void sha256_fast_init(struct sha256_fast *s);
void sha256_fast_update(struct sha256_fast *s, const void *buf, size_t len);
void sha256_fast_final(struct sha256_fast *s, uint8_t out[SHA256_BYTES]);

#endif
