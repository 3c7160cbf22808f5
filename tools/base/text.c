/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* vasprintf */
#include "tools/base/text.h"

#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "tools/base/exit_codes.h"
#include "tools/base/util.h"

/* Calls put(ctx, piece, len) for each piece of s as shown: runs of text as they are, each byte
 * to escape as "\xNN". */
static void shown_pieces(const char *s, void (*put)(void *, const char *, size_t), void *ctx)
{
	size_t n = strlen(s), i = 0, run = 0;

	while (i < n) {
		size_t k = utf8_seq_len(s + i, n - i);
		unsigned char c = (unsigned char)s[i];
		if (k && !(k == 1 && ((c < 0x20 && c != '\t') || c == 0x7F))) {
			i += k;
			continue;
		}
		char esc[5];
		put(ctx, s + run, i - run);
		snprintf(esc, sizeof esc, "\\x%02X", c);
		put(ctx, esc, 4);
		run = ++i;
	}
	put(ctx, s + run, n - run);
}

struct growing {
	char *buf;
	size_t len;
};

static void grow_put(void *ctx, const char *p, size_t n)
{
	struct growing *g = ctx;
	g->buf = xrealloc(g->buf, g->len + n + 1);
	memcpy(g->buf + g->len, p, n);
	g->len += n;
	g->buf[g->len] = 0;
}

char *text_shown(const char *s)
{
	struct growing g = { xstrdup(""), 0 };
	shown_pieces(s ? s : "", grow_put, &g);
	return g.buf;
}

static void file_put(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, (FILE *)ctx);
}

void text_put(FILE *f, const char *s)
{
	shown_pieces(s ? s : "", file_put, f);
}

char *text_vformat(const char *fmt, va_list ap)
{
	char *out;
	if (vasprintf(&out, fmt, ap) < 0) {
		fprintf(stderr, "anysector: out of memory\n");
		exit(EXIT_ERRORS);
	}
	return out;
}
