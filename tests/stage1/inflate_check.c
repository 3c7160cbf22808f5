/* Host check of stage2/inflate.c (built with ASan+UBSan): each pair of files is a raw DEFLATE
 * stream and the bytes it must decode to. The stream must decode exactly; then damaged copies
 * (bit flips, truncations) must fail or decode to something, never read or write out of bounds,
 * and an output buffer one byte short must fail.
 *   inflate_check STREAM EXPECTED [STREAM EXPECTED]...
 * Prints one line per pair and exits nonzero on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage2/inflate.h"

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
static bool decode(const unsigned char *src, size_t slen, size_t cap, unsigned char **out, size_t *olen)
{
	unsigned char *in = malloc(slen ? slen : 1);
	bool ok;

	memcpy(in, src, slen);
	*out = malloc(cap ? cap : 1);
	ok = inflate(in, slen, *out, cap, olen);
	free(in);
	return ok;
}

static int check(const char *stream_path, const char *expect_path, unsigned seed)
{
	size_t slen, elen, olen = 0;
	unsigned char *stream = slurp(stream_path, &slen);
	unsigned char *expect = slurp(expect_path, &elen);
	unsigned char *out;
	int bad = 0;

	if (!decode(stream, slen, elen, &out, &olen) || olen != elen || memcmp(out, expect, elen)) {
		printf("FAIL  %s does not decode to %s\n", stream_path, expect_path);
		bad = 1;
	}
	free(out);
	if (elen) {
		if (decode(stream, slen, elen - 1, &out, &olen)) {
			printf("FAIL  %s decodes into a buffer one byte too small\n", stream_path);
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
		decode(m, mlen, elen, &out, &olen);            /* any outcome but a memory error */
		free(out);
		free(m);
	}
	if (!bad)
		printf("PASS  %s (%zu -> %zu bytes, %d damaged copies)\n", stream_path, slen, elen,
		       MUTATIONS);
	free(stream);
	free(expect);
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc < 3 || argc % 2 == 0) {
		fprintf(stderr, "usage: %s STREAM EXPECTED [STREAM EXPECTED]...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i + 1 < argc; i += 2)
		bad |= check(argv[i], argv[i + 1], (unsigned)i);
	return bad;
}
