/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: common/pe.c on any file: the headers, every section name the installer asks for,
 * the certificate table and the SBAT records of .sbat. Whatever is returned must lie inside the
 * input (ASan sees the exact-size copy), and the iterations must end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/pe.h"

static void inside(const uint8_t *base, size_t size, const void *p, size_t n)
{
	const uint8_t *q = p;
	if (q < base || q > base + size || n > (size_t)(base + size - q))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		__builtin_trap();
	memcpy(buf, data, size);

	struct pe_image pe;
	const uint8_t *d;
	size_t n;
	if (!pe_parse(buf, size, &pe)) {
		static const char *const names[] = { ".sbat", ".text", ".reloc", ".linux", "" };
		for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
			if (!pe_section(&pe, names[i], &d, &n))
				inside(buf, size, d, n);
		uint32_t pos = 0, last = 0;
		uint16_t rev, type;
		unsigned count = 0;
		while (!pe_cert_next(&pe, &pos, &rev, &type, &d, &n)) {
			inside(buf, size, d, n);
			if (pos <= last && count)
				__builtin_trap();          /* it must move on */
			last = pos;
			if (++count > size)
				__builtin_trap();
		}
	}
	/* The input itself as .sbat text. */
	struct sbat_record r;
	size_t at = 0, prev = 0;
	int rc;
	while (!(rc = sbat_next(buf, size, &at, &r))) {
		if (at <= prev && prev)
			__builtin_trap();
		prev = at;
		for (unsigned f = 0; f < 5; f++)
			if (r.field[f])
				inside(buf, size, r.field[f], r.field_len[f]);
			else
				__builtin_trap();
	}
	(void)sbat_find(buf, size, "anysector", &r);
	free(buf);
	return 0;
}
