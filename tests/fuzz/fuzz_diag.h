/* SPDX-License-Identifier: BSD-2-Clause */
/* What every fuzz target demands of the diagnostics a parser reports (common/diag.h): a code, a
 * known level, and a non-empty sentence that fits DIAG_MSG_MAX; and of a string it fills, a NUL
 * inside its buffer. A broken one traps, which libFuzzer reports as a crash. */
#ifndef ANYSECTOR_FUZZ_DIAG_H
#define ANYSECTOR_FUZZ_DIAG_H

#include <stddef.h>
#include <string.h>

#include "common/diag.h"

static inline void fuzz_emit(struct diag *d, enum diag_level level, const char *code,
			     const char *msg)
{
	(void)d;
	if (!code || !code[0] || !msg || !msg[0] || level > DIAG_ERROR ||
	    strlen(msg) >= DIAG_MSG_MAX)
		__builtin_trap();
}

static inline void fuzz_check_str(const char *s, size_t cap)
{
	if (strnlen(s, cap) >= cap)
		__builtin_trap();
}

#endif
