/* SPDX-License-Identifier: BSD-2-Clause */
/* Unified kernel images (common/uki.h): the one judgement of a file both loaders and the
 * installer make, and the two texts the menu takes from it. */
#include "common/uki.h"

#include "common/errors.h"
#include "common/mem.h"
#include "common/str.h"

static const char sec_names[UKI_SECTIONS][9] = {
	".linux", ".initrd", ".ucode", ".cmdline", ".osrel", ".uname",
};

/* A section's name for a sentence: its 8 bytes up to the first NUL, anything but a printable
 * ASCII character shown as '?'. */
static void shown_name(const uint8_t *raw, char out[9])
{
	unsigned i = 0;
	for (; i < 8 && raw[i]; i++)
		out[i] = raw[i] >= 0x20 && raw[i] < 0x7F ? (char)raw[i] : '?';
	out[i] = 0;
}

static int headers(const struct pe_image *pe, const char *path, struct diag *d)
{
	unsigned long long at = pe->fault_at, end = pe->fault_end, size = pe->file_len;

	switch (pe->fault) {
	case PE_FAULT_NONE:
		return 0;
	case PE_FAULT_NO_MZ:
	case PE_FAULT_NO_PE:
		diag_error(d, "uki.not_pe", "%s is not an EFI executable (no PE header)",
			   path);
		break;
	case PE_FAULT_TABLE:
		if (end <= size)
			diag_error(d, "uki.table", "%s: its section table (bytes %llu..%llu) is past the "
				   "first %u bytes, where the loaders read it", path, at,
				   end, UKI_HEAD_BYTES);
		else
			diag_error(d, "uki.table", "%s: its section table (bytes %llu..%llu) lies "
				   "outside the %llu-byte file", path, at, end, size);
		break;
	default:
		diag_error(d, "uki.header", "%s: its PE headers (bytes %llu..%llu) are damaged or "
			   "cut short in the %llu-byte file", path, at, end, size);
		break;
	}
	return AS_ECORRUPT;
}

/* Every section's data lies inside the file; the ones anysector reads are noted. */
static int sections(const struct pe_image *pe, const char *path, struct uki *u, struct diag *d)
{
	for (unsigned i = 0; i < pe->nsections; i++) {
		const uint8_t *name;
		struct pe_span sp;
		if (pe_section_at(pe, i, &name, &sp)) {
			char n[9];
			unsigned long long a = sp.off, b = sp.off + sp.len;
			shown_name(name, n);
			if (a < pe->file_len)
				diag_error(d, "uki.cut", "%s: section %s (bytes %llu..%llu) runs past the "
					   "end of the %llu-byte file: it is cut short", path,
					   n, a, b, (unsigned long long)pe->file_len);
			else
				diag_error(d, "uki.section", "%s: section %s points at bytes %llu..%llu, "
					   "outside the %llu-byte file", path, n, a, b,
					   (unsigned long long)pe->file_len);
			return AS_ECORRUPT;
		}
		for (unsigned s = 0; s < UKI_SECTIONS; s++)
			if (!uki_has(u, s) && !memcmp(name, sec_names[s], 8)) {
				u->sec[s] = sp;
				u->has |= (uint8_t)(1u << s);
			}
	}
	return 0;
}

int uki_parse(const uint8_t *head, size_t head_len, uint64_t file_len, const char *path,
	      size_t cmdline_max, struct uki *u, struct diag *d)
{
	struct pe_image pe;
	int rc;

	memset(u, 0, sizeof *u);
	if (head_len > file_len)
		head_len = (size_t)file_len;
	if (head_len > UKI_HEAD_BYTES)
		head_len = UKI_HEAD_BYTES;
	pe_parse_head(head, head_len, file_len, &pe);
	if ((rc = headers(&pe, path, d)) || (rc = sections(&pe, path, u, d)))
		return rc;
	if (pe.machine != UKI_PE_MACHINE_X64) {
		diag_warn(d, "uki.machine", "%s is for another machine (PE machine 0x%04x), not "
			  "x86-64", path, pe.machine);
		return AS_EUNSUPP;
	}
	static const uint8_t need[] = { UKI_LINUX, UKI_CMDLINE, UKI_OSREL };
	for (unsigned i = 0; i < sizeof need; i++)
		if (!uki_has(u, need[i])) {
			diag_warn(d, "uki.not_uki", "%s is not a unified kernel image: it has no %s "
				  "section", path, sec_names[need[i]]);
			return AS_EUNSUPP;
		}
	if (u->sec[UKI_CMDLINE].len >= cmdline_max || u->sec[UKI_OSREL].len > UKI_OSREL_MAX) {
		bool c = u->sec[UKI_CMDLINE].len >= cmdline_max;
		diag_error(d, "uki.too_long", "%s: its %s is %u bytes, more than the %u the loaders "
			   "read", path, c ? ".cmdline" : ".osrel",
			   (unsigned)u->sec[c ? UKI_CMDLINE : UKI_OSREL].len,
			   c ? (unsigned)cmdline_max - 1 : UKI_OSREL_MAX);
		return AS_ECORRUPT;
	}
	return 0;
}

/* One value's text from v (after '=') up to the end of its line: quotes removed, backslashes
 * taken, into out. Returns its length, -1 when it has a control character, -2 when it does not
 * fit. */
static int osrel_unquote(const char *v, const char *end, char *out, size_t cap)
{
	size_t n = 0;
	char quote = 0;
	int rc = 0;

	for (; v < end && *v != '\n'; v++) {
		char c = *v;
		if (c == '\r' && (v + 1 == end || v[1] == '\n'))
			continue;   /* a CRLF line end */
		if (((unsigned char)c < 0x20 && c != '\t') || c == 0x7F)
			return -1;
		/* as the shell reads it: in double quotes only $ " \ ` are escaped */
		if (quote != '\'' && c == '\\' && v + 1 < end && v[1] != '\n' &&
		    (!quote || v[1] == '$' || v[1] == '"' || v[1] == '\\' || v[1] == '`')) {
			c = *++v;
			if (((unsigned char)c < 0x20 && c != '\t') || c == 0x7F)
				return -1;
		} else if (!quote && (c == '"' || c == '\'')) {
			quote = c;
			continue;
		} else if (quote && c == quote) {
			quote = 0;
			continue;
		} else if (!quote && chr_is_space(c)) {
			break;   /* the end of an unquoted value (a comment may follow) */
		}
		if (n + 1 < cap)
			out[n] = c;
		else
			rc = -2;
		n++;
	}
	out[n < cap ? n : cap - 1] = 0;
	return rc ? rc : (int)n;
}

int uki_osrel_value(const char *text, size_t len, const char *key, char *out, size_t cap)
{
	const char *p = text, *end = text + len;
	size_t kn = str_len(key);
	int rc = -1;

	out[0] = 0;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) > kn && !str_ncmp(p, key, kn) && p[kn] == '=') {
			rc = osrel_unquote(p + kn + 1, end, out, cap);
			if (rc == -1)
				out[0] = 0;
			if (rc < 0)
				rc = -2;
		}
		while (p < end && *p++ != '\n')
			;
	}
	return rc;
}

bool uki_cmdline(const char *text, size_t *len, const char *path, struct diag *d)
{
	size_t n = *len;
	while (n && (!text[n - 1] || chr_is_space(text[n - 1])))
		n--;
	*len = n;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)text[i] < 0x20 && text[i] != '\t') || text[i] == 0x7F) {
			diag_error(d, "uki.cmdline", "%s: its .cmdline has a control character at byte "
				   "%u", path, (unsigned)i);
			return false;
		}
	return true;
}
