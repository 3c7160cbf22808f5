/* SPDX-License-Identifier: BSD-2-Clause */
/* A small vsnprintf for freestanding code: %d %i %u %x %X %o %c %s %p %%, flags '-' '0',
 * a width (or '*'), a precision for %s (or ".*"), and the hh h l ll z j length modifiers.
 * Uses the compiler's builtin varargs because common/ includes no libc header beyond
 * stdint/stddef/stdbool. */
#ifndef ANYSECTOR_FMT_H
#define ANYSECTOR_FMT_H

#include <stddef.h>

typedef __builtin_va_list fmt_va_list;
#define fmt_va_start(ap, last) __builtin_va_start(ap, last)
#define fmt_va_end(ap) __builtin_va_end(ap)
#define fmt_va_arg(ap, type) __builtin_va_arg(ap, type)
#define fmt_va_copy(d, s) __builtin_va_copy(d, s)

/* Returns the length the full output would have had (like C99 vsnprintf); always terminates
 * when cap > 0. */
int fmt_vsnprintf(char *buf, size_t cap, const char *fmt, fmt_va_list ap);
int fmt_snprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
