/* SPDX-License-Identifier: BSD-2-Clause */
/* Every message the installer produces goes through one report: problems found by common/
 * parsers (through their struct diag) and the tool's own sentences. A report either echoes each
 * message to stderr as it arrives (normal use) or only collects them (for --json and for
 * commands that decide afterwards what a problem means). */
#ifndef ANYSECTOR_TOOLS_REPORT_H
#define ANYSECTOR_TOOLS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/diag.h"

#define REPORT_CODE_MAX 48
/* The size of a buffer a caller builds part of a sentence in (a "why" it passes on); the
 * sentences themselves have no limit. */
#define REPORT_MSG_MAX 2048

struct report_item {
	enum diag_level level;
	char code[REPORT_CODE_MAX];
	char *msg;                 /* the whole sentence as shown (tools/base/text.h), malloc'd */
};

struct report {
	struct diag diag;          /* hand &r->diag to common/ functions */
	struct report_item *items;
	unsigned n, cap;
	bool echo;                 /* print each item to stderr as it arrives */
	bool quiet_info;           /* when echoing, leave out DIAG_INFO items */
	struct report *forward;    /* also pass every item on to this report (may be NULL) */
};

void report_init(struct report *r, bool echo);
void report_free(struct report *r);
/* Adds an item (and echoes/forwards it); counts it in r->diag. The sentence is kept whole, with
 * the bytes that are not UTF-8 and control characters as \xNN (tools/base/text.h). */
void report_add(struct report *r, enum diag_level level, const char *code, const char *msg);
void report_printf(struct report *r, enum diag_level level, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The items as the "problems" array of a --json document: level, code and message each. */
struct json;
void report_json(const struct report *r, struct json *j);
/* The first item at level >= min (NULL when none). */
const struct report_item *report_first(const struct report *r, enum diag_level min);
/* True when an item with this code was reported. */
bool report_has(const struct report *r, const char *code);
/* "error", "warning", "info". */
const char *report_level_name(enum diag_level level);

/* The process-wide report the command helpers use (set up by main). */
extern struct report *g_report;

#define t_error(code, ...) report_printf(g_report, DIAG_ERROR, (code), __VA_ARGS__)
#define t_warn(code, ...) report_printf(g_report, DIAG_WARN, (code), __VA_ARGS__)
#define t_info(code, ...) report_printf(g_report, DIAG_INFO, (code), __VA_ARGS__)

#endif
