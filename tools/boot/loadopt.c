/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/boot/loadopt.h"

#include <string.h>

#include "common/errors.h"
#include "common/le.h"

#define DP_MEDIA 0x04
#define DP_MEDIA_HD 0x01
#define DP_MEDIA_FILE 0x04
#define DP_END 0x7F
#define DP_END_ENTIRE 0xFF
#define HD_NODE_LEN 42
/* a device path longer than this is no boot entry of a disk; the walk stops there */
#define DP_MAX_NODES 64

static bool ascii_text(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7E)
			return false;
	return true;
}

/* Writes s as NUL-terminated UCS-2 at out (bytes), '/' turned into '\' when path. */
static size_t put_ucs2(uint8_t *out, const char *s, bool path)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		le16_store(out + 2 * i, (uint16_t)(path && s[i] == '/' ? '\\' : s[i]));
	le16_store(out + 2 * n, 0);
	return 2 * (n + 1);
}

size_t loadopt_build(uint8_t *out, size_t cap, const char *desc, const struct loadopt_hd *hd,
		     const char *path)
{
	if (!ascii_text(desc, LOADOPT_DESC_MAX) || !ascii_text(path, LOADOPT_PATH_MAX))
		return 0;
	bool lead = path[0] == '/' || path[0] == '\\';
	size_t plen = 2 * (strlen(path) + !lead + 1);
	size_t dplen = HD_NODE_LEN + 4 + plen + 4;
	size_t total = 6 + 2 * (strlen(desc) + 1) + dplen;
	if (total > cap || dplen > 0xFFFF)
		return 0;
	memset(out, 0, total);
	le32_store(out, LOAD_OPTION_ACTIVE);
	le16_store(out + 4, (uint16_t)dplen);
	uint8_t *p = out + 6 + put_ucs2(out + 6, desc, false);
	p[0] = DP_MEDIA;
	p[1] = DP_MEDIA_HD;
	le16_store(p + 2, HD_NODE_LEN);
	le32_store(p + 4, hd->number);
	le64_store(p + 8, hd->start);
	le64_store(p + 16, hd->size);
	memcpy(p + 24, hd->signature, 16);
	p[40] = hd->gpt ? 2 : 1;
	p[41] = hd->gpt ? 2 : 1;
	p += HD_NODE_LEN;
	p[0] = DP_MEDIA;
	p[1] = DP_MEDIA_FILE;
	le16_store(p + 2, (uint16_t)(4 + plen));
	if (!lead)
		le16_store(p + 4, '\\');
	put_ucs2(p + 4 + (lead ? 0 : 2), path, true);
	p += 4 + plen;
	p[0] = DP_END;
	p[1] = DP_END_ENTIRE;
	le16_store(p + 2, 4);
	return total;
}

/* UCS-2 at buf (n bytes, may lack its NUL) as ASCII into out[cap]; others become '?'. */
static void get_ucs2(const uint8_t *buf, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; i + 1 < n && k + 1 < cap; i += 2) {
		uint16_t c = le16_load(buf + i);
		if (!c)
			break;
		out[k++] = c >= 0x20 && c < 0x7F ? (char)c : '?';
	}
	out[k] = 0;
}

static void read_hd(const uint8_t *p, struct loadopt_hd *hd)
{
	hd->number = le32_load(p + 4);
	hd->start = le64_load(p + 8);
	hd->size = le64_load(p + 16);
	memcpy(hd->signature, p + 24, 16);
	hd->gpt = p[41] == 2;
}

int loadopt_parse(const uint8_t *buf, size_t len, struct loadopt_info *out)
{
	memset(out, 0, sizeof *out);
	if (len < 6)
		return AS_ECORRUPT;
	out->attributes = le32_load(buf);
	size_t dplen = le16_load(buf + 4), at = 6;
	while (at + 1 < len && le16_load(buf + at))
		at += 2;
	if (at + 1 >= len)
		return AS_ECORRUPT;      /* no NUL ends the description */
	get_ucs2(buf + 6, at - 6, out->desc, sizeof out->desc);
	at += 2;
	if (dplen > len - at)
		return AS_ECORRUPT;
	const uint8_t *dp = buf + at;
	for (unsigned nodes = 0, off = 0; nodes < DP_MAX_NODES; nodes++) {
		if (off + 4 > dplen)
			return AS_ECORRUPT;
		const uint8_t *p = dp + off;
		size_t n = le16_load(p + 2);
		if (n < 4 || n > dplen - off)
			return AS_ECORRUPT;
		if (p[0] == DP_END)
			return 0;        /* the end of the first path (instance or entire) */
		if (p[0] == DP_MEDIA && p[1] == DP_MEDIA_HD && n >= HD_NODE_LEN && !out->has_hd) {
			read_hd(p, &out->hd);
			out->has_hd = true;
		} else if (p[0] == DP_MEDIA && p[1] == DP_MEDIA_FILE && !out->has_file) {
			get_ucs2(p + 4, n - 4, out->path, sizeof out->path);
			out->has_file = true;
		}
		off += (unsigned)n;
	}
	return 0;
}

bool loadopt_path_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a == '/' ? '\\' : *a, y = *b == '/' ? '\\' : *b;
		if (x >= 'a' && x <= 'z')
			x = (char)(x - 32);
		if (y >= 'a' && y <= 'z')
			y = (char)(y - 32);
		if (x != y)
			return false;
		if (!x)
			return true;
	}
}
