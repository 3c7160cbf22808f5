/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/fmt.h"

#include <stdbool.h>
#include <stdint.h>

struct out {
	char *buf;
	size_t cap;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->cap)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

static void put_number(struct out *o, unsigned long long v, bool neg, unsigned base, bool upper,
		       int width, bool left, bool zero)
{
	char tmp[24];
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0, len;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	len = n + (neg ? 1 : 0);
	if (!left && !zero)
		pad(o, ' ', width - len);
	if (neg)
		put(o, '-');
	if (!left && zero)
		pad(o, '0', width - len);
	while (n)
		put(o, tmp[--n]);
	if (left)
		pad(o, ' ', width - len);
}

/* One piece: the directive parser and its conversions share the va_list and the flags of one
 * directive; split, the va_list would go by pointer through every helper, which costs stage2
 * bytes it does not have (docs/DESIGN.md "stage2's size budget") for no reader's gain. */
int fmt_vsnprintf(char *buf, size_t cap, const char *fmt, fmt_va_list ap)
{
	struct out o = { buf, cap, 0 };

	for (; *fmt; fmt++) {
		bool left = false, zero = false;
		int width = 0, prec = -1, lng = 0;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				zero = true;
			else
				break;
		}
		if (*fmt == '*') {
			width = fmt_va_arg(ap, int);
			if (width < 0) {
				left = true;
				width = -width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = fmt_va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
			}
		}
		for (;; fmt++) {
			if (*fmt == 'l')
				lng++;
			else if (*fmt == 'z' || *fmt == 'j')
				lng = 2;
			else if (*fmt == 'h')
				;
			else
				break;
		}
		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = lng >= 2 ? fmt_va_arg(ap, long long)
				      : lng == 1 ? fmt_va_arg(ap, long) : fmt_va_arg(ap, int);
			unsigned long long mag = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
			put_number(&o, mag, v < 0, 10, false, width, left, zero);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			unsigned long long v = lng >= 2 ? fmt_va_arg(ap, unsigned long long)
					       : lng == 1 ? fmt_va_arg(ap, unsigned long)
							  : fmt_va_arg(ap, unsigned int);
			unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
			put_number(&o, v, false, base, *fmt == 'X', width, left, zero);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_number(&o, (uintptr_t)fmt_va_arg(ap, void *), false, 16, false, width, left, zero);
			break;
		case 'c': {
			char c = (char)fmt_va_arg(ap, int);
			if (!left)
				pad(&o, ' ', width - 1);
			put(&o, c);
			if (left)
				pad(&o, ' ', width - 1);
			break;
		}
		case 's': {
			const char *s = fmt_va_arg(ap, const char *);
			int n = 0;
			if (!s)
				s = "(null)";
			while ((prec < 0 || n < prec) && s[n])
				n++;
			if (!left)
				pad(&o, ' ', width - n);
			for (int i = 0; i < n; i++)
				put(&o, s[i]);
			if (left)
				pad(&o, ' ', width - n);
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case 0:
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = 0;
	return (int)o.len;
}

int fmt_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
	fmt_va_list ap;
	int n;
	fmt_va_start(ap, fmt);
	n = fmt_vsnprintf(buf, cap, fmt, ap);
	fmt_va_end(ap);
	return n;
}
