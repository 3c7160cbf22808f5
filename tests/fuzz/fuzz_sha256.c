/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: common/sha256.c against OpenSSL's libcrypto (the host's reference) on any message,
 * fed whole and in pieces whose sizes come from the input's first bytes, so every way of
 * straddling the 64-byte blocks and the padding is tried. The hex round trip is checked too. */
#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>

#include "common/sha256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t want[SHA256_BYTES], got[SHA256_BYTES], back[SHA256_BYTES];
	unsigned wlen = 0;
	char hex[SHA256_HEX_LEN + 1];

	if (!EVP_Digest(data, size, want, &wlen, EVP_sha256(), NULL) || wlen != SHA256_BYTES)
		__builtin_trap();
	sha256(data, size, got);
	if (memcmp(got, want, SHA256_BYTES))
		__builtin_trap();

	/* Pieces: byte i of the first 8 gives the i-th piece's length (then the rest in one). */
	struct sha256 s;
	size_t off = 0;
	sha256_init(&s);
	for (size_t i = 0; i < 8 && i < size && off < size; i++) {
		size_t n = data[i] % 131;
		if (n > size - off)
			n = size - off;
		sha256_update(&s, data + off, n);
		off += n;
	}
	sha256_update(&s, data + off, size - off);
	sha256_final(&s, got);
	if (memcmp(got, want, SHA256_BYTES))
		__builtin_trap();

	sha256_hex(got, hex);
	if (strlen(hex) != SHA256_HEX_LEN || !sha256_from_hex(hex, SHA256_HEX_LEN, back) ||
	    memcmp(back, want, SHA256_BYTES))
		__builtin_trap();
	/* Any input of hex length parses only when it is all hex digits. */
	if (size >= SHA256_HEX_LEN && sha256_from_hex((const char *)data, SHA256_HEX_LEN, back)) {
		for (size_t i = 0; i < SHA256_HEX_LEN; i++) {
			char c = (char)data[i];
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
				__builtin_trap();
		}
	}
	return 0;
}
