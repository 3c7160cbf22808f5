/* SPDX-License-Identifier: BSD-2-Clause */
/* Freestanding memory primitives for stage2 and the EFI application (never built for the host,
 * where libc and the sanitizers provide them). */
#include "common/mem.h"

#include <stdint.h>

/* On x86 the copy and the fill move a machine word per step of a string instruction: stage2
 * copies every byte it reads out of its int 13h bounce buffer, and under emulation (QEMU TCG) a
 * byte loop over a 64 MiB initrd cost about a second. DF is clear on entry (both ABIs). */
#if defined(__x86_64__)
#define STRING_WORD "q"
#elif defined(__i386__)
#define STRING_WORD "l"
#endif

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
#ifdef STRING_WORD
	void *d = dst;
	const void *s = src;
	size_t words = n / sizeof(long), rest = n % sizeof(long);
	__asm__ volatile("rep movs" STRING_WORD : "+D"(d), "+S"(s), "+c"(words) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(rest) : : "memory");
#else
	uint8_t *d = dst;
	const uint8_t *s = src;
	while (n--)
		*d++ = *s++;
#endif
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (d < s) {
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
#ifdef STRING_WORD
	void *d = dst;
	unsigned long fill = (uint8_t)c * (~0ul / 0xFF);  /* the byte in every byte of a word */
	size_t words = n / sizeof(long), rest = n % sizeof(long);
	__asm__ volatile("rep stos" STRING_WORD : "+D"(d), "+c"(words) : "a"(fill) : "memory");
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(rest) : "a"(fill) : "memory");
#else
	uint8_t *d = dst;
	while (n--)
		*d++ = (uint8_t)c;
#endif
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x < *y ? -1 : 1;
	return 0;
}
