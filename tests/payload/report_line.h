/* SPDX-License-Identifier: BSD-2-Clause */
/* The one line both test payloads print (tests/payload/{bios,efi}/README.md):
 *
 *   ANYSECTOR-PAYLOAD proto=P cmdline="..." initrd_size=N initrd_crc32=xxxxxxxx
 *
 * assembled in memory, so each payload only sends it to its own console. Freestanding (common/
 * fmt and crc32 only): built for the BIOS payload's 32-bit world and for gnu-efi. */
#ifndef ANYSECTOR_TESTS_PAYLOAD_REPORT_LINE_H
#define ANYSECTOR_TESTS_PAYLOAD_REPORT_LINE_H

#include <stddef.h>
#include <stdint.h>

/* Room for the longest command line the BIOS payload takes (cmdline_size 2047, at worst four
 * characters a byte) and the rest of the line. */
#define REPORT_LINE_MAX 8448u

struct report_line {
	char text[REPORT_LINE_MAX];    /* always NUL-terminated */
	size_t len;
};

/* Appends printf-style text (common/fmt.h); what does not fit is cut. */
void line_add(struct report_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts the line afresh: 'ANYSECTOR-PAYLOAD proto=P cmdline="'. */
void line_begin(struct report_line *l, const char *proto);
/* One character of the command line, escaped as both payloads promise: printable ASCII as is;
 * '"', '\\', control characters and 0x7F..0xFF as \xHH; wider UCS-2 characters as \uHHHH. A
 * command line too long for the line is cut, so the line's end always fits. */
void line_cmdline_char(struct report_line *l, uint16_t c);
/* Ends the line: '" initrd_size=N initrd_crc32=xxxxxxxx', the CRC32 of the initrd's bytes
 * (0 when size is 0). */
void line_end(struct report_line *l, const void *initrd, uint64_t size);

#endif
