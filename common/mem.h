/* SPDX-License-Identifier: BSD-2-Clause */
/* The four memory primitives common/ uses. The compiler may emit calls to them on its own, so they
 * keep their standard names: the host gets them from libc, firmware builds link common/mem.c. */
#ifndef ANYSECTOR_MEM_H
#define ANYSECTOR_MEM_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#endif
