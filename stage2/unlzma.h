/* SPDX-License-Identifier: BSD-2-Clause */
/* stage2's body is packed by stage2/pack.py as: x86 CALL/JMP targets made absolute over the text
 * (x86_unfilter undoes it), then LZMA: one properties byte ((pb * 5 + lp) * 9 + lc) followed by
 * the range-coded stream. */
#ifndef ANYSECTOR_STAGE2_UNLZMA_H
#define ANYSECTOR_STAGE2_UNLZMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of probabilities the model of properties byte props needs. */
size_t lzma_probs_bytes(unsigned props);

/* Decodes exactly dst_len bytes from the stream src[0..src_len) into dst, using scratch for the
 * model. False when the stream is damaged or truncated, when it would write past dst_len or copy
 * from before dst, or when scratch is smaller than lzma_probs_bytes() of its properties. */
bool lzma_unpack(const void *src, size_t src_len, void *dst, size_t dst_len, void *scratch,
		 size_t scratch_len);

/* Undoes pack.py's x86 filter over the len bytes of text at b (len: the text's size). */
void x86_unfilter(uint8_t *b, size_t len);

#endif
