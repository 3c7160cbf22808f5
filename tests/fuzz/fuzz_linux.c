/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the Linux setup header parser. Input: le32 count of file bytes beyond the
 * given head (so a small input can stand for a large kernel), then the head of the file. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/le.h"
#include "common/linux.h"
#include "tests/fuzz/fuzz_diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag diag = { .emit = fuzz_emit };
	struct linux_header h;

	if (size < 4)
		return 0;
	uint64_t file_size = (size - 4) + (uint64_t)le32_load(data);
	const uint8_t *head = data + 4;
	size_t len = size - 4;

	if (linux_header_parse(head, len, file_size, &h, &diag) == 0) {
		/* what a loader then relies on */
		if (h.version < LINUX_MIN_PROTOCOL || !(h.loadflags & LINUX_LOADED_HIGH))
			__builtin_trap();
		if (h.setup_bytes % LINUX_SETUP_SECTOR || h.setup_bytes >= file_size ||
		    h.kernel_bytes != file_size - h.setup_bytes)
			__builtin_trap();
		if (diag.errors)
			__builtin_trap();
	} else if (!diag.errors) {
		__builtin_trap();  /* every refusal says why */
	}
	/* the same head as a file of exactly its own size */
	linux_header_parse(head, len, len, &h, &diag);
	return 0;
}
