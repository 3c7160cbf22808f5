/* SPDX-License-Identifier: BSD-2-Clause */
/* Diagnostics: parsers and validators report every problem as a whole sentence naming what and
 * where ("GPT entry 3: start LBA 9000 beyond last usable 8158") to a sink the caller chooses:
 * stderr or JSON on the host, the console in firmware, a capture buffer in tests. A NULL sink
 * only counts nothing and drops the text. */
#ifndef ANYSECTOR_DIAG_H
#define ANYSECTOR_DIAG_H

#include <stddef.h>

enum diag_level {
	DIAG_INFO = 0,   /* a fact worth telling ("using the backup GPT header") */
	DIAG_WARN = 1,   /* usable but wrong or risky (misaligned partition) */
	DIAG_ERROR = 2,  /* invalid; the operation cannot go on with this object */
};

/* A short machine-readable code for each kind of problem, so tests and --json can match exactly
 * without parsing sentences. Modules define their own strings ("gpt.header_crc", ...). */
struct diag {
	void (*emit)(struct diag *d, enum diag_level level, const char *code, const char *msg);
	void *ctx;
	unsigned errors;
	unsigned warnings;
	unsigned infos;
};

/* The longest sentence: a stack buffer in the loaders; on the host (the installer, tests) room
 * for any path a sentence names, so none is cut there. */
#if __STDC_HOSTED__
#define DIAG_MSG_MAX 1024
#else
#define DIAG_MSG_MAX 256
#endif

/* stage2 defines DIAG_NO_CODES: its console shows only the sentence (stage2/console.c
 * diag_to_console), so there a code is not even passed: diag_report drops it (diag_text gets
 * the rest, and the sink sees ""), and DIAG_CODE(code), for a code handed on through another
 * function first (common/config.c cfg_err), is "". The codes' text and their arguments were
 * about 600 bytes of its packed image. Nothing may decide by a code there. */
#ifdef DIAG_NO_CODES
void diag_text(struct diag *d, enum diag_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define diag_report(d, level, code, ...) ((void)(code), diag_text((d), (level), __VA_ARGS__))
#define DIAG_CODE(code) ""
#else
void diag_report(struct diag *d, enum diag_level level, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define DIAG_CODE(code) (code)
#endif

#define diag_error(d, code, ...) diag_report((d), DIAG_ERROR, (code), __VA_ARGS__)
#define diag_warn(d, code, ...) diag_report((d), DIAG_WARN, (code), __VA_ARGS__)
#define diag_info(d, code, ...) diag_report((d), DIAG_INFO, (code), __VA_ARGS__)

#endif
