/* SPDX-License-Identifier: BSD-2-Clause */
/* The parts of a PE/COFF image (an EFI application, a Linux kernel's EFI stub, shim) that the
 * installer's Secure Boot report needs: the section table (for .sbat), the Authenticode
 * certificate table (WIN_CERTIFICATE entries after the image, PE format "The Attribute
 * Certificate Table") and SBAT's CSV lines (https://github.com/rhboot/shim/blob/main/SBAT.md).
 * Every offset and size comes from the file and is checked against its length. */
#ifndef ANYSECTOR_PE_H
#define ANYSECTOR_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PE_DOS_LFANEW_OFF 0x3C
#define PE_CERT_REVISION_2 0x0200
#define PE_CERT_TYPE_PKCS7 0x0002    /* WIN_CERT_TYPE_PKCS_SIGNED_DATA: Authenticode */
#define PE_CERT_HEADER 8             /* dwLength, wRevision, wCertificateType */

struct pe_image {
	const uint8_t *buf;
	size_t len;
	uint16_t machine;            /* 0x8664 x86-64, 0x14C i386, 0xAA64 arm64 */
	bool pe32plus;
	uint64_t sections_off;       /* the section table */
	uint16_t nsections;
	uint32_t cert_off, cert_len; /* the certificate table (file offset), 0 when unsigned */
};

/* Reads the headers. Returns 0, or AS_ECORRUPT for anything that is not a PE image whose
 * headers, section table and certificate table lie inside the file. */
int pe_parse(const uint8_t *buf, size_t len, struct pe_image *pe);

/* The file bytes of the section called name (at most 8 characters): its raw data, cut to its
 * virtual size when that is smaller (the rest is the file's alignment padding). Returns 0,
 * AS_ENOENT when there is no such section, AS_ECORRUPT when it lies outside the file. */
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
