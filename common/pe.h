/* SPDX-License-Identifier: BSD-2-Clause */
/* The parts of a PE/COFF image (an EFI application, a Linux kernel's EFI stub, shim, a unified
 * kernel image) that anysector reads: the headers and section table (the installer's .sbat, the
 * sections of a unified kernel image, common/uki.h), the Authenticode certificate table
 * (WIN_CERTIFICATE entries after the image, PE format "The Attribute Certificate Table") and
 * SBAT's CSV lines (https://github.com/rhboot/shim/blob/main/SBAT.md).
 *
 * The headers may be parsed from the file's first bytes alone (stage2 reads no more of a UKI
 * than it boots): they and the section table must lie in those bytes; the certificate table and
 * every section's data are checked against the whole file's length. Every offset and size comes
 * from the file and is checked before use. */
#ifndef ANYSECTOR_PE_H
#define ANYSECTOR_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PE_DOS_LFANEW_OFF 0x3C
#define PE_CERT_REVISION_2 0x0200
#define PE_CERT_TYPE_PKCS7 0x0002    /* WIN_CERT_TYPE_PKCS_SIGNED_DATA: Authenticode */
#define PE_CERT_HEADER 8             /* dwLength, wRevision, wCertificateType */

/* Why pe_parse_head refused a file. */
enum pe_fault {
	PE_FAULT_NONE = 0,
	PE_FAULT_NO_MZ,              /* shorter than an MS-DOS header, or no "MZ" */
	PE_FAULT_NO_PE,              /* no "PE\0\0" where e_lfanew points (fault_at: there) */
	PE_FAULT_HEADER,             /* the COFF or optional header is cut short or damaged */
	PE_FAULT_TABLE,              /* the section table [fault_at, fault_end) is not in the
				      * bytes read (beyond the file, or beyond head_len) */
	PE_FAULT_CERT,               /* the certificate table [fault_at, fault_end) is not in the
				      * file */
};

struct pe_image {
	const uint8_t *buf;          /* the file's first bytes (all of them for pe_parse) */
	size_t len;                  /* bytes at buf */
	uint64_t file_len;           /* the whole file's size */
	uint16_t machine;            /* 0x8664 x86-64, 0x14C i386, 0xAA64 arm64 */
	bool pe32plus;
	uint64_t sections_off;       /* the section table */
	uint16_t nsections;
	uint32_t cert_off, cert_len; /* the certificate table (file offset), 0 when unsigned */
	enum pe_fault fault;         /* why pe_parse_head refused it */
	uint64_t fault_at, fault_end;
};

/* Where a section's data lies in the file: its raw data, cut to its virtual size when that is
 * smaller (the rest is the file's alignment padding). */
struct pe_span {
	uint64_t off;
	uint32_t len;
};

/* Reads the headers from head[0..head_len), the first bytes of a file of file_len bytes
 * (head_len <= file_len). Returns 0, or AS_ECORRUPT for anything that is not a PE image whose
 * headers and section table lie in those bytes and whose certificate table lies inside the file
 * (pe->fault says which). */
int pe_parse_head(const uint8_t *head, size_t head_len, uint64_t file_len, struct pe_image *pe);
/* The same with the whole file in memory. */
int pe_parse(const uint8_t *buf, size_t len, struct pe_image *pe);

/* Section i's (0 <= i < nsections) name (8 bytes, NUL-padded, not terminated when it has 8) and
 * where its data lies. Returns 0, or AS_ECORRUPT (span still filled) when the data does not lie
 * inside the file. */
int pe_section_at(const struct pe_image *pe, unsigned i, const uint8_t **name,
		  struct pe_span *span);
/* The first section called name (at most 8 characters): pe_section_at's returns, or AS_ENOENT
 * when there is none. */
int pe_section_span(const struct pe_image *pe, const char *name, struct pe_span *span);
/* Its bytes, when they lie in the bytes parsed (the whole file for pe_parse): 0, AS_ENOENT,
 * AS_ECORRUPT when they do not. */
int pe_section(const struct pe_image *pe, const char *name, const uint8_t **data, size_t *len);

/* The certificate table's entries in turn: *pos starts at 0. Each call gives the next entry's
 * revision, type and contents (after the 8-byte header). Returns 0, AS_ENOENT after the last,
 * AS_ECORRUPT for an entry whose length runs outside the table or is shorter than its header. */
int pe_cert_next(const struct pe_image *pe, uint32_t *pos, uint16_t *revision, uint16_t *type,
		 const uint8_t **data, size_t *len);

/* One SBAT record: a line's first fields (component_name, component_generation, vendor_name,
 * vendor_package_name, vendor_version). Fields are not terminated: field_len. */
struct sbat_record {
	const char *field[5];
	size_t field_len[5];
	uint32_t generation;
};

/* The records of .sbat text (data, len) in turn, empty lines skipped; a NUL ends the text (a C
 * string section). *pos starts at 0. Returns 0, AS_ENOENT after the last, AS_ECORRUPT for a
 * line with fewer than two fields or a generation that is not a decimal number. */
int sbat_next(const uint8_t *data, size_t len, size_t *pos, struct sbat_record *rec);
/* The record whose component_name is name. Same returns. */
int sbat_find(const uint8_t *data, size_t len, const char *name, struct sbat_record *rec);

#endif
