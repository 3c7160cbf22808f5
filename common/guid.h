/* SPDX-License-Identifier: BSD-2-Clause */
/* GUIDs as they lie on disk: 16 bytes, the first three fields little-endian (UEFI "mixed endian").
 * Text form is the usual 8-4-4-4-12 upper-case hex. */
#ifndef ANYSECTOR_GUID_H
#define ANYSECTOR_GUID_H

#include <stdbool.h>
#include <stdint.h>

struct guid {
	uint8_t b[16];
};

#define GUID_STR_LEN 36 /* without the terminator */

/* Parses "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" (either case, optional braces); false if malformed. */
bool guid_parse(const char *s, struct guid *out);
/* Writes 36 characters + NUL into out[37]. */
void guid_format(const struct guid *g, char out[GUID_STR_LEN + 1]);
bool guid_eq(const struct guid *a, const struct guid *b);
bool guid_is_zero(const struct guid *g);

extern const struct guid GUID_ESP;        /* C12A7328-F81F-11D2-BA4B-00A0C93EC93B */
extern const struct guid GUID_BIOS_BOOT;  /* 21686148-6449-6E6F-744E-656564454649 */
extern const struct guid GUID_LINUX_FS;   /* 0FC63DAF-8483-4772-8E79-3D69D8477DE4 */
extern const struct guid GUID_MS_BASIC;   /* EBD0A0A2-B9E5-4433-87C0-68B6B72699C7 */

#endif
