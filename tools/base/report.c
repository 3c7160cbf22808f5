/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/base/report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/base/json.h"
#include "tools/base/text.h"
#include "tools/base/util.h"

struct report *g_report;

static void report_emit(struct diag *d, enum diag_level level, const char *code, const char *msg)
{
	struct report *r = d->ctx;

	/* diag_report() already counted this item in d; report_add counts again, so undo. */
	if (level == DIAG_ERROR)
		d->errors--;
	else if (level == DIAG_WARN)
		d->warnings--;
	else
		d->infos--;
	report_add(r, level, code, msg);
}

void report_init(struct report *r, bool echo)
{
	memset(r, 0, sizeof *r);
	r->diag.emit = report_emit;
	r->diag.ctx = r;
	r->echo = echo;
}

void report_free(struct report *r)
{
	for (unsigned i = 0; i < r->n; i++)
		free(r->items[i].msg);
	free(r->items);
	r->items = NULL;
	r->n = r->cap = 0;
}

const char *report_level_name(enum diag_level level)
{
	switch (level) {
	case DIAG_ERROR: return "error";
	case DIAG_WARN: return "warning";
	default: return "info";
	}
}

void report_add(struct report *r, enum diag_level level, const char *code, const char *msg)
{
	if (level == DIAG_ERROR)
		r->diag.errors++;
	else if (level == DIAG_WARN)
		r->diag.warnings++;
	else
		r->diag.infos++;
	if (r->n == r->cap) {
		unsigned cap = r->cap ? r->cap * 2 : 16;
		r->items = xrealloc(r->items, cap * sizeof *r->items);
		r->cap = cap;
	}
	struct report_item *it = &r->items[r->n++];
	it->level = level;
	snprintf(it->code, sizeof it->code, "%s", code ? code : "");
	it->msg = text_shown(msg);
	if (r->echo && !(r->quiet_info && level == DIAG_INFO)) {
		if (level == DIAG_INFO)
			fprintf(stderr, "anysector: %s\n", it->msg);
		else
			fprintf(stderr, "anysector: %s: %s\n", report_level_name(level), it->msg);
	}
	if (r->forward)
		report_add(r->forward, level, code, it->msg);
}

void report_printf(struct report *r, enum diag_level level, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *msg = text_vformat(fmt, ap);
	va_end(ap);
	report_add(r, level, code, msg);
	free(msg);
}

const struct report_item *report_first(const struct report *r, enum diag_level min)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->items[i].level >= min)
			return &r->items[i];
	return NULL;
}

bool report_has(const struct report *r, const char *code)
{
	for (unsigned i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].code, code))
			return true;
	return false;
}

void report_json(const struct report *r, struct json *j)
{
	json_arr_begin(j, "problems");
	for (unsigned i = 0; i < r->n; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "level", report_level_name(r->items[i].level));
		json_str(j, "code", r->items[i].code);
		json_str(j, "message", r->items[i].msg);
		json_obj_end(j);
	}
	json_arr_end(j);
}
