/* SPDX-License-Identifier: BSD-2-Clause */
/* The running system's UEFI variables through efivarfs (/sys/firmware/efi/efivars): each
 * variable a file NAME-GUID holding its u32 attributes (little-endian) then its data. Used: the
 * global variables of the boot manager (Boot####, BootOrder, BootCurrent, GUID
 * 8BE4DF61-93CA-11D2-AA0D-00E098032B8C), and, read only, the loader's LoaderBootCountPath
 * (bless). ANYSECTOR_TEST_EFIVARS names a plain directory to use
 * instead (tests), where files are replaced by rename. */
#ifndef ANYSECTOR_TOOLS_EFIVARS_H
#define ANYSECTOR_TOOLS_EFIVARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/dev/hostdev.h"

#define EFI_GLOBAL_GUID_TEXT "8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define EFIVAR_NV_BS_RT 0x00000007u   /* non-volatile, boot service and runtime access */
#define EFIVARS_MAX_BYTES (64u << 10) /* a boot entry or BootOrder is far smaller */

/* The directory of the variables, or NULL when this system was not booted through UEFI (with
 * ANYSECTOR_TEST_EFIVARS naming no directory, too). */
const char *efivars_dir(void);
/* Whether this system's firmware can see the target h: a disk, not an image file or a loop
 * device over one (with ANYSECTOR_TEST_EFIVARS: any target). */
bool efivars_sees(const struct hostdev *h);

/* Reads the global variable name ("BootOrder") into a malloc'd buffer. Returns 0 or an AS_*
 * code: AS_ENOENT when it does not exist, AS_EIO (errno says why), AS_ECORRUPT (shorter than
 * its attributes), AS_ETOOBIG. */
int efivar_read(const char *dir, const char *name, uint32_t *attr, uint8_t **data, size_t *len);
/* systemd's loader GUID, the vendor of the Boot Loader Interface's variables. */
#define LOADER_GUID_TEXT "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
/* A string variable of systemd's Boot Loader Interface (UCS-2) as ASCII into out ('?' for
 * what is not printable ASCII); false when dir is NULL or the variable is not there. */
bool efivar_loader_str(const char *dir, const char *name, char *out, size_t cap);
/* Writes the global variable name with attr and data (one write of attributes and data, as the
 * kernel wants it; the immutable flag efivarfs may set is cleared first). Returns 0 or AS_EIO
 * (errno says why). */
int efivar_write(const char *dir, const char *name, uint32_t attr, const uint8_t *data,
		 size_t len);
/* The numbers of the Boot#### variables there are, ascending, into ids (at most cap). Returns
 * how many. */
unsigned efivar_boot_ids(const char *dir, uint16_t *ids, unsigned cap);

#endif
