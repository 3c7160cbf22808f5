#ifndef ANYSECTOR_STAGE2_INFLATE_H
#define ANYSECTOR_STAGE2_INFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the raw DEFLATE stream src[0..src_len) into dst (at most dst_len bytes). False when
 * the stream is damaged, truncated or would not fit; *out_len is the decoded size on success. */
bool inflate(const void *src, size_t src_len, void *dst, size_t dst_len, size_t *out_len);

#endif
