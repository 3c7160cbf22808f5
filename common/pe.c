/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/pe.h"

#include "common/bits.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/mem.h"
#include "common/str.h"

#define PE_SIG_BYTES 4            /* "PE\0\0" */
#define COFF_HEADER_BYTES 20
#define COFF_NSECTIONS_OFF 2
#define COFF_OPT_SIZE_OFF 16
#define OPT_MAGIC_PE32 0x10B
#define OPT_MAGIC_PE32PLUS 0x20B
#define OPT_NDIRS_OFF_PE32 92     /* NumberOfRvaAndSizes */
#define OPT_NDIRS_OFF_PE32PLUS 108
#define DIR_SECURITY 4            /* IMAGE_DIRECTORY_ENTRY_SECURITY: a file offset, not an RVA */
#define DIR_BYTES 8
#define SECTION_BYTES 40
#define SECTION_VSIZE_OFF 8
#define SECTION_RAWSIZE_OFF 16
#define SECTION_RAWPTR_OFF 20
#define SECTION_NAME_MAX 8

static bool inside(uint64_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

static int refuse(struct pe_image *pe, enum pe_fault f, uint64_t at, uint64_t end)
{
	pe->fault = f;
	pe->fault_at = at;
	pe->fault_end = end;
	return AS_ECORRUPT;
}

/* The data directories' certificate entry (a file offset, not an RVA), checked against the
 * whole file. */
static int read_cert_dir(struct pe_image *pe, uint64_t opt, uint16_t opt_size)
{
	const uint8_t *buf = pe->buf;
	uint32_t ndirs_off = pe->pe32plus ? OPT_NDIRS_OFF_PE32PLUS : OPT_NDIRS_OFF_PE32;
	if (opt_size < ndirs_off + 4)
		return refuse(pe, PE_FAULT_HEADER, opt, opt + opt_size);
	uint32_t ndirs = le32_load(buf + opt + ndirs_off);
	uint64_t dirs = opt + ndirs_off + 4;
	if (ndirs > (opt_size - ndirs_off - 4) / DIR_BYTES)
		return refuse(pe, PE_FAULT_HEADER, opt, opt + opt_size);
	if (ndirs > DIR_SECURITY) {
		const uint8_t *d = buf + dirs + DIR_SECURITY * DIR_BYTES;
		pe->cert_off = le32_load(d);
		pe->cert_len = le32_load(d + 4);
		if (!pe->cert_len)
			pe->cert_off = 0;
		else if (!pe->cert_off || !inside(pe->file_len, pe->cert_off, pe->cert_len))
			return refuse(pe, PE_FAULT_CERT, pe->cert_off,
				      (uint64_t)pe->cert_off + pe->cert_len);
	}
	return 0;
}

int pe_parse_head(const uint8_t *buf, size_t len, uint64_t file_len, struct pe_image *pe)
{
	memset(pe, 0, sizeof *pe);
	pe->buf = buf;
	pe->len = len;
	pe->file_len = file_len;
	if (len > file_len || !inside(len, 0, PE_DOS_LFANEW_OFF + 4) || buf[0] != 'M' ||
	    buf[1] != 'Z')
		return refuse(pe, PE_FAULT_NO_MZ, 0, 0);
	uint64_t hdr = le32_load(buf + PE_DOS_LFANEW_OFF);
	if (!inside(len, hdr, PE_SIG_BYTES + COFF_HEADER_BYTES) || memcmp(buf + hdr, "PE\0\0", 4))
		return refuse(pe, PE_FAULT_NO_PE, hdr, hdr + PE_SIG_BYTES);
	const uint8_t *coff = buf + hdr + PE_SIG_BYTES;
	uint16_t opt_size = le16_load(coff + COFF_OPT_SIZE_OFF);
	uint64_t opt = hdr + PE_SIG_BYTES + COFF_HEADER_BYTES;
	if (!inside(len, opt, opt_size) || opt_size < 2)
		return refuse(pe, PE_FAULT_HEADER, opt, opt + opt_size);
	pe->machine = le16_load(coff);
	pe->nsections = le16_load(coff + COFF_NSECTIONS_OFF);
	uint16_t magic = le16_load(buf + opt);
	if (magic != OPT_MAGIC_PE32 && magic != OPT_MAGIC_PE32PLUS)
		return refuse(pe, PE_FAULT_HEADER, opt, opt + 2);
	pe->pe32plus = magic == OPT_MAGIC_PE32PLUS;
	int rc = read_cert_dir(pe, opt, opt_size);
	if (rc)
		return rc;
	uint64_t sections = opt + opt_size;
	uint64_t table = (uint64_t)pe->nsections * SECTION_BYTES;
	if (!inside(len, sections, table))
		return refuse(pe, PE_FAULT_TABLE, sections, sections + table);
	pe->sections_off = sections;
	return 0;
}

int pe_parse(const uint8_t *buf, size_t len, struct pe_image *pe)
{
	return pe_parse_head(buf, len, len, pe);
}

int pe_section_at(const struct pe_image *pe, unsigned i, const uint8_t **name,
		  struct pe_span *span)
{
	const uint8_t *s = pe->buf + pe->sections_off + (size_t)i * SECTION_BYTES;
	uint32_t vsize = le32_load(s + SECTION_VSIZE_OFF);
	uint32_t raw = le32_load(s + SECTION_RAWSIZE_OFF);

	*name = s;
	span->off = le32_load(s + SECTION_RAWPTR_OFF);
	span->len = vsize && vsize < raw ? vsize : raw;
	return inside(pe->file_len, span->off, span->len) ? 0 : AS_ECORRUPT;
}

int pe_section_span(const struct pe_image *pe, const char *name, struct pe_span *span)
{
	size_t n = str_nlen(name, SECTION_NAME_MAX + 1);
	if (n > SECTION_NAME_MAX)
		return AS_ENOENT;
	for (unsigned i = 0; i < pe->nsections; i++) {
		const uint8_t *s;
		int rc = pe_section_at(pe, i, &s, span);
		/* the name is NUL-padded to 8 bytes, and not terminated when it has 8 */
		if (!memcmp(s, name, n) && (n == SECTION_NAME_MAX || !s[n]))
			return rc;
	}
	return AS_ENOENT;
}

int pe_section(const struct pe_image *pe, const char *name, const uint8_t **data, size_t *len)
{
	struct pe_span sp;
	int rc = pe_section_span(pe, name, &sp);
	if (rc)
		return rc;
	if (!inside(pe->len, sp.off, sp.len))
		return AS_ECORRUPT;
	*data = pe->buf + sp.off;
	*len = sp.len;
	return 0;
}

int pe_cert_next(const struct pe_image *pe, uint32_t *pos, uint16_t *revision, uint16_t *type,
		 const uint8_t **data, size_t *len)
{
	if (!pe->cert_len || *pos >= pe->cert_len)
		return AS_ENOENT;
	uint32_t left = pe->cert_len - *pos;
	if (left < PE_CERT_HEADER)
		return AS_ECORRUPT;
	const uint8_t *c = pe->buf + pe->cert_off + *pos;
	uint32_t n = le32_load(c);
	if (n < PE_CERT_HEADER || n > left)
		return AS_ECORRUPT;
	*revision = le16_load(c + 4);
	*type = le16_load(c + 6);
	*data = c + PE_CERT_HEADER;
	*len = n - PE_CERT_HEADER;
	/* entries start on 8-byte boundaries */
	uint32_t next = *pos + ALIGN_UP(n, 8);
	*pos = next > *pos ? next : pe->cert_len;
	return 0;
}

/* Splits the line [p, end) into up to 5 comma-separated fields. */
static int sbat_split(const char *p, const char *end, struct sbat_record *rec)
{
	unsigned k = 0;
	memset(rec, 0, sizeof *rec);
	rec->field[0] = p;
	for (; p < end; p++) {
		if (*p != ',')
			continue;
		rec->field_len[k] = (size_t)(p - rec->field[k]);
		if (++k == 5)
			break;
		rec->field[k] = p + 1;
	}
	if (k < 5)
		rec->field_len[k] = (size_t)(end - rec->field[k]);
	for (unsigned i = k + 1; i < 5; i++)
		rec->field[i] = end;   /* absent fields are empty, never NULL */
	if (k < 1)
		return AS_ECORRUPT;
	uint32_t g = 0;
	if (!rec->field_len[1] || rec->field_len[1] > 9)
		return AS_ECORRUPT;
	for (size_t i = 0; i < rec->field_len[1]; i++) {
		char c = rec->field[1][i];
		if (!chr_is_digit(c))
			return AS_ECORRUPT;
		g = g * 10 + (uint32_t)(c - '0');
	}
	rec->generation = g;
	return 0;
}

int sbat_next(const uint8_t *data, size_t len, size_t *pos, struct sbat_record *rec)
{
	const char *text = (const char *)data;
	size_t end = 0;
	while (end < len && data[end])
		end++;
	while (*pos < end) {
		size_t eol = *pos;
		while (eol < end && text[eol] != '\n')
			eol++;
		size_t e = eol;
		if (e > *pos && text[e - 1] == '\r')
			e--;
		size_t start = *pos;
		*pos = eol < end ? eol + 1 : end;
		if (e > start)
			return sbat_split(text + start, text + e, rec);
	}
	return AS_ENOENT;
}

int sbat_find(const uint8_t *data, size_t len, const char *name, struct sbat_record *rec)
{
	size_t pos = 0, n = str_len(name);
	int rc;
	while (!(rc = sbat_next(data, len, &pos, rec)))
		if (rec->field_len[0] == n && !memcmp(rec->field[0], name, n))
			return 0;
	return rc;
}
