/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: common/uki.c and the header-only reading of common/pe.c on any file. The input is
 * the file. Asserted: every span handed out lies inside the file; the verdict and the spans are
 * the same whether the parser is given the file's first UKI_HEAD_BYTES bytes (as stage2 reads
 * them) or the whole file (as the installer does), and for any head of at least that size; an
 * accepted file has .linux, .cmdline and .osrel; os-release values are terminated and no longer
 * than the buffer; .cmdline's text shrinks only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/uki.h"

static const char *const keys[] = { "PRETTY_NAME", "VERSION_ID", "ID", "IMAGE_ID", "NAME" };

static void check_value(const uint8_t *data, size_t size)
{
	char out[48];
	for (unsigned k = 0; k < ARRAY_SIZE(keys); k++) {
		memset(out, 0x55, sizeof out);
		int n = uki_osrel_value((const char *)data, size, keys[k], out, sizeof out);
		size_t len = strnlen(out, sizeof out);
		if (len == sizeof out || n < -2 || (n >= 0 && (size_t)n != len))
			__builtin_trap();
		if (n == -1 && len)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		__builtin_trap();
	memcpy(buf, data, size);

	struct uki whole, head;
	int a = uki_parse(buf, size, size, "f", 1024, &whole, NULL);
	size_t h = size < UKI_HEAD_BYTES ? size : UKI_HEAD_BYTES;
	int b = uki_parse(buf, h, size, "f", 1024, &head, NULL);
	if (a != b || (!a && memcmp(&whole, &head, sizeof whole)))
		__builtin_trap();
	if (!a) {
		for (unsigned s = 0; s < UKI_SECTIONS; s++)
			if (uki_has(&whole, s) &&
			    (whole.sec[s].off > size || whole.sec[s].len > size - whole.sec[s].off))
				__builtin_trap();
		if (!uki_has(&whole, UKI_LINUX) || !uki_has(&whole, UKI_CMDLINE) ||
		    !uki_has(&whole, UKI_OSREL) || whole.sec[UKI_CMDLINE].len >= 1024 ||
		    whole.sec[UKI_OSREL].len > UKI_OSREL_MAX)
			__builtin_trap();
	}

	/* the headers alone, any number of bytes of them */
	struct pe_image pe;
	size_t cut = size ? data[0] * 17u % (size + 1) : 0;
	if (!pe_parse_head(buf, cut, size, &pe)) {
		if (pe.sections_off + (uint64_t)pe.nsections * 40 > cut)
			__builtin_trap();
		for (unsigned i = 0; i < pe.nsections; i++) {
			const uint8_t *name;
			struct pe_span sp;
			if (!pe_section_at(&pe, i, &name, &sp) &&
			    (sp.off > size || sp.len > size - sp.off))
				__builtin_trap();
		}
	}

	check_value(buf, size);
	size_t n = size;
	uki_cmdline((const char *)buf, &n, "f", NULL);
	if (n > size)
		__builtin_trap();
	free(buf);
	return 0;
}
