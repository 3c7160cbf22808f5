/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/base/sha256_fast.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/base/exit_codes.h"

/* Only an allocation fails in a digest of memory: said and exited, as xmalloc does. */
static void failed(const char *what)
{
	fprintf(stderr, "anysector: out of memory (libcrypto's SHA-256: %s)\n", what);
	exit(EXIT_ERRORS);
}

void sha256_fast_init(struct sha256_fast *s)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL))
		failed("init");
	s->ctx = c;
}

void sha256_fast_update(struct sha256_fast *s, const void *buf, size_t len)
{
	if (len && !EVP_DigestUpdate(s->ctx, buf, len))
		failed("update");
}

void sha256_fast_final(struct sha256_fast *s, uint8_t out[SHA256_BYTES])
{
	unsigned n = 0;
	if (!EVP_DigestFinal_ex(s->ctx, out, &n) || n != SHA256_BYTES)
		failed("final");
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
}
