/* SPDX-License-Identifier: BSD-2-Clause */
#include "tests/payload/report_line.h"

#include "common/crc32.h"
#include "common/fmt.h"

/* Room kept for line_end and a " initrd=none" after it. */
#define LINE_TAIL_MAX 96u

void line_add(struct report_line *l, const char *fmt, ...)
{
	size_t room = REPORT_LINE_MAX - l->len;
	fmt_va_list ap;

	fmt_va_start(ap, fmt);
	int n = fmt_vsnprintf(l->text + l->len, room, fmt, ap);
	fmt_va_end(ap);
	if (n > 0)
		l->len += (size_t)n < room ? (size_t)n : room - 1;
}

void line_begin(struct report_line *l, const char *proto)
{
	l->len = 0;
	l->text[0] = 0;
	line_add(l, "ANYSECTOR-PAYLOAD proto=%s cmdline=\"", proto);
}

void line_cmdline_char(struct report_line *l, uint16_t c)
{
	if (l->len + sizeof "\\uHHHH" + LINE_TAIL_MAX > REPORT_LINE_MAX)
		return;
	if (c >= 0x20 && c <= 0x7E && c != '"' && c != '\\')
		line_add(l, "%c", c);
	else if (c <= 0xFF)
		line_add(l, "\\x%02x", c);
	else
		line_add(l, "\\u%04x", c);
}

void line_end(struct report_line *l, const void *initrd, uint64_t size)
{
	line_add(l, "\" initrd_size=%llu initrd_crc32=%08x", (unsigned long long)size,
		 (unsigned)(size ? crc32(initrd, (size_t)size) : 0));
}
