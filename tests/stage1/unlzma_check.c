/* SPDX-License-Identifier: BSD-2-Clause */
/* Host check of stage2/unlzma.c (built with ASan+UBSan): each triple names a packed stream (the
 * properties byte, then raw LZMA), the bytes it must unpack to, and how many of them are text
 * under pack.py's x86 filter (0: none). The stream must unpack exactly; a model buffer one byte
 * short must be refused; a stream cut in half must fail; then damaged copies (bit flips,
 * truncations) must fail or unpack to something, never read or write out of bounds.
 *   unlzma_check STREAM EXPECTED TEXT [STREAM EXPECTED TEXT]...
 * Prints one line per triple and exits nonzero on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage2/unlzma.h"

#define MUTATIONS 300

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Exact-size heap copies, so ASan sees any access past either end. */
static bool unpack(const unsigned char *src, size_t slen, size_t cap, size_t scratch,
		   unsigned char **out)
{
	unsigned char *in = malloc(slen ? slen : 1);
	unsigned char *model = malloc(scratch ? scratch : 1);
	bool ok;

	memcpy(in, src, slen);
	*out = malloc(cap ? cap : 1);
	ok = lzma_unpack(in, slen, *out, cap, model, scratch);
	free(model);
	free(in);
	return ok;
}

static int check(const char *stream_path, const char *expect_path, size_t text, unsigned seed)
{
	size_t slen, elen;
	unsigned char *stream = slurp(stream_path, &slen);
	unsigned char *expect = slurp(expect_path, &elen);
	size_t model = slen ? lzma_probs_bytes(stream[0]) : 0;
	unsigned char *out = NULL;
	int bad = 0;

	bool ok = text <= elen && unpack(stream, slen, elen, model, &out);
	if (ok)
		x86_unfilter(out, text);
	if (!ok || memcmp(out, expect, elen)) {
		printf("FAIL  %s does not unpack to %s\n", stream_path, expect_path);
		bad = 1;
	}
	free(out);
	if (unpack(stream, slen, elen, model - 1, &out)) {
		printf("FAIL  %s unpacks with a model buffer one byte short\n", stream_path);
		bad = 1;
	}
	free(out);
	if (elen > 64) {
		if (unpack(stream, slen / 2, elen, model, &out)) {
			printf("FAIL  %s unpacks from half of its bytes\n", stream_path);
			bad = 1;
		}
		free(out);
	}

	srand(seed);
	for (int i = 0; i < MUTATIONS; i++) {
		unsigned char *m = malloc(slen);
		size_t mlen = slen;
		memcpy(m, stream, slen);
		if (i % 3 == 2)
			mlen = (size_t)rand() % slen;                /* truncated */
		else
			for (int k = 0; k <= i % 4; k++) {
				size_t at = (size_t)rand() % slen;
				m[at] ^= (unsigned char)(1u << (rand() % 8));
			}
		if (unpack(m, mlen, elen, model, &out))        /* any outcome but a memory error */
			x86_unfilter(out, text);
		free(out);
		free(m);
	}
	if (!bad)
		printf("PASS  %s (%zu -> %zu bytes, %zu of text, %d damaged copies)\n", stream_path, slen,
		       elen, text, MUTATIONS);
	free(stream);
	free(expect);
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc < 4 || (argc - 1) % 3) {
		fprintf(stderr, "usage: %s STREAM EXPECTED TEXT [STREAM EXPECTED TEXT]...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i + 2 < argc; i += 3)
		bad |= check(argv[i], argv[i + 1], strtoul(argv[i + 2], NULL, 0), (unsigned)i);
	return bad;
}
