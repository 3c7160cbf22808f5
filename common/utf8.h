/* SPDX-License-Identifier: BSD-2-Clause */
/* UTF-8 as RFC 3629 defines it: what the tool's --json and the menu's titles are held to. */
#ifndef ANYSECTOR_UTF8_H
#define ANYSECTOR_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* The length (1..4) of the well-formed UTF-8 sequence s[0..n) starts with, 0 when it starts
 * with none: a stray continuation byte, an overlong form, a surrogate (U+D800..U+DFFF), a code
 * point past U+10FFFF, a sequence cut short by n, or n == 0. */
size_t utf8_seq_len(const char *s, size_t n);

/* Whether s[0..n) is well-formed UTF-8 throughout; *bad (may be NULL) gets the index of the
 * first byte that is not. */
bool utf8_valid(const char *s, size_t n, size_t *bad);

#define UTF8_REPLACEMENT "\xEF\xBF\xBD"   /* U+FFFD */

/* Copies [s, s+n) to dst (cap bytes, cap > 0, always terminated) with U+FFFD for each byte that
 * is not part of a well-formed character, cut at a character's start when it does not fit.
 * Returns bit 0 set when a byte was replaced, bit 1 set when it was cut. (A menu title.) */
unsigned utf8_copy(char *dst, size_t cap, const char *s, size_t n);

#endif
