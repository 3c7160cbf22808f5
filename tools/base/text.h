/* SPDX-License-Identifier: BSD-2-Clause */
/* Text the installer did not make (paths, titles, command lines from a disk or the command
 * line) as it shows it: a byte that is not part of well-formed UTF-8 (common/utf8.h) is written
 * as the four characters \xNN, in messages, listings and --json alike, so every output is valid
 * UTF-8 and they all say the same; the text output also writes control characters that way. */
#ifndef ANYSECTOR_TOOLS_TEXT_H
#define ANYSECTOR_TOOLS_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* s as shown in a message or listing (invalid bytes and control characters other than tab as
 * \xNN), malloc'd. */
char *text_shown(const char *s);
/* s written to f the way text_shown gives it. */
void text_put(FILE *f, const char *s);

/* The string the arguments make, malloc'd, however long (vasprintf that ends the process when
 * memory runs out, as util.h's x* functions do). */
char *text_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
