/* SPDX-License-Identifier: BSD-2-Clause */
/* The initrd as the Linux EFI stub fetches it: a handle carrying a vendor media device path with
 * LINUX_EFI_INITRD_MEDIA_GUID and EFI_LOAD_FILE2_PROTOCOL that copies the bytes out. */
#ifndef ANYSECTOR_EFI_INITRD_H
#define ANYSECTOR_EFI_INITRD_H

#include "efi/app.h"

/* Publishes data[0..size) until initrd_unpublish. EFI_ALREADY_STARTED when another loader
 * already serves an initrd. */
EFI_STATUS initrd_publish(const void *data, UINTN size);
void initrd_unpublish(void);

#endif
