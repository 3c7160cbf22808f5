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

#define DIAG_MSG_MAX 256

void diag_report(struct diag *d, enum diag_level level, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A code as a call site gives it. stage2 defines DIAG_NO_CODES: its console shows only the
 * sentence (stage2/console.c diag_to_console), and the codes' text was about 500 bytes of its
 * packed image. A module that decides by a code passes it to diag_report itself
 * (common/gpt_read.c). */
#ifdef DIAG_NO_CODES
#define DIAG_CODE(code) ""
#else
#define DIAG_CODE(code) (code)
#endif

#define diag_error(d, code, ...) diag_report((d), DIAG_ERROR, DIAG_CODE(code), __VA_ARGS__)
#define diag_warn(d, code, ...) diag_report((d), DIAG_WARN, DIAG_CODE(code), __VA_ARGS__)
#define diag_info(d, code, ...) diag_report((d), DIAG_INFO, DIAG_CODE(code), __VA_ARGS__)

#endif
