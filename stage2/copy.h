/* SPDX-License-Identifier: BSD-2-Clause */
/* The copy of a read out of the bounce buffer into the kernel's and initrd's memory. */
#ifndef ANYSECTOR_STAGE2_COPY_H
#define ANYSECTOR_STAGE2_COPY_H

#include <stddef.h>

/* Copies n bytes from src (in the bounce buffer) to dst, as memcpy. */
void bounce_copy_out(void *dst, const void *src, size_t n);

#endif
