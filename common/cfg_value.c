/* SPDX-License-Identifier: BSD-2-Clause */
/* The values add may write into anysector.cfg (common/config.h cfg_value_fault): the rules
 * follow what common/config.c's parser does to a value (trim, comments, control characters,
 * field sizes) and what FAT allows in a directory name. */
#include "common/bits.h"
#include "common/config.h"
#include "common/str.h"
#include "common/utf8.h"

/* CON, PRN, AUX, NUL, COM1..COM9, LPT1..LPT9, in any case, as the whole name or before a '.'. */
static bool reserved_device(const char *s, size_t n)
{
	static const char *const three[] = { "CON", "PRN", "AUX", "NUL" };
	size_t stem = 0;

	while (stem < n && s[stem] != '.')
		stem++;
	if (stem == 3) {
		for (size_t i = 0; i < ARRAY_SIZE(three); i++)
			if (!str_ncasecmp(s, three[i], 3))
				return true;
	}
	return stem == 4 && (!str_ncasecmp(s, "COM", 3) || !str_ncasecmp(s, "LPT", 3)) &&
	       s[3] >= '1' && s[3] <= '9';
}

static enum cfg_fault name_fault(const char *s, size_t n, size_t *at)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || chr_is_digit(c) ||
		      c == '.' || c == '_' || c == '-' || c == '+')) {
			*at = i;
			return CFG_FAULT_CHAR;
		}
	}
	if (s[n - 1] == '.') {
		*at = n - 1;
		return CFG_FAULT_DOTS;
	}
	return reserved_device(s, n) ? CFG_FAULT_RESERVED : CFG_FAULT_NONE;
}

/* A title, command line or path: one line, no white space at the ends; a title or path also
 * UTF-8 (FAT's long names are UTF-16) and no '#' where the parser starts a comment (a cmdline
 * keeps its '#'). */
static enum cfg_fault text_fault(bool strict, const char *s, size_t n, size_t *at)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t') || c == 0x7F) {
			*at = i;
			return CFG_FAULT_CONTROL;
		}
	}
	if (strict && !utf8_valid(s, n, at))
		return CFG_FAULT_NOT_UTF8;
	if (chr_is_space(s[0]) || chr_is_space(s[n - 1])) {
		*at = chr_is_space(s[0]) ? 0 : n - 1;
		return CFG_FAULT_EDGE_SPACE;
	}
	for (size_t i = 0; strict && i < n; i++) {
		if (s[i] == '#' && (i == 0 || chr_is_space(s[i - 1]))) {
			*at = i;
			return CFG_FAULT_COMMENT;
		}
	}
	return CFG_FAULT_NONE;
}

enum cfg_fault cfg_value_fault(enum cfg_field field, const char *s, size_t n, size_t *at)
{
	size_t max = field == CFG_FIELD_NAME ? CFG_NAME_MAX : field == CFG_FIELD_TITLE
				   ? CFG_TITLE_MAX : field == CFG_FIELD_PATH ? CFG_PATH_MAX
				   : CFG_CMDLINE_MAX;
	size_t where = 0;
	enum cfg_fault f;

	if (!n)
		f = field == CFG_FIELD_CMDLINE ? CFG_FAULT_NONE : CFG_FAULT_EMPTY;
	else if (n >= max)
		f = CFG_FAULT_TOO_LONG;
	else if (field == CFG_FIELD_NAME && (n == 1 || n == 2) && s[0] == '.' && s[n - 1] == '.')
		f = CFG_FAULT_DOTS;
	else if (field == CFG_FIELD_NAME)
		f = name_fault(s, n, &where);
	else
		f = text_fault(field != CFG_FIELD_CMDLINE, s, n, &where);
	if (at)
		*at = where;
	return f;
}
