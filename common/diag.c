/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/diag.h"

#include "common/errors.h"
#include "common/fmt.h"

#ifdef DIAG_NO_CODES
void diag_text(struct diag *d, enum diag_level level, const char *fmt, ...)
{
	const char *code = "";
#else
void diag_report(struct diag *d, enum diag_level level, const char *code, const char *fmt, ...)
{
#endif
	char msg[DIAG_MSG_MAX];
	fmt_va_list ap;

	if (!d)
		return;
	if (level == DIAG_ERROR)
		d->errors++;
	else if (level == DIAG_WARN)
		d->warnings++;
	else
		d->infos++;
	if (!d->emit)
		return;
	fmt_va_start(ap, fmt);
	fmt_vsnprintf(msg, sizeof msg, fmt, ap);
	fmt_va_end(ap);
	d->emit(d, level, code, msg);
}

const char *as_strerror(int err)
{
	switch (err) {
	case AS_OK: return "success";
	case AS_EIO: return "device I/O error";
	case AS_ERANGE: return "out of range";
	case AS_EINVAL: return "invalid argument";
	case AS_ECORRUPT: return "corrupt data";
	case AS_ENOENT: return "not found";
	case AS_ENOSPC: return "no space";
	case AS_EUNSUPP: return "unsupported";
	case AS_ENOTDIR: return "not a directory";
	case AS_EISDIR: return "is a directory";
	case AS_ELOOP: return "chain loops or is too long";
	case AS_ETOOBIG: return "too large";
	case AS_ENOMEM: return "out of memory";
	case AS_EABORT: return "cancelled";
	case AS_EDENIED: return "verification failed";
	default: return "unknown error";
	}
}
