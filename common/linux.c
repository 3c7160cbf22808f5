/* SPDX-License-Identifier: BSD-2-Clause */
/* The Linux/x86 setup header (Documentation/arch/x86/boot.rst, "THE REAL-MODE KERNEL HEADER").
 * Only what a loader must trust is checked; fields newer than the kernel's protocol get the
 * defaults boot.rst gives for older kernels. */
#include "common/linux.h"

#include "common/errors.h"
#include "common/le.h"

/* Header offsets only the parser reads (the ones loaders write are in linux.h). */
#define LINUX_OFF_SYSSIZE 0x1F4
#define LINUX_OFF_HEADER 0x202
#define LINUX_OFF_KERNEL_ALIGNMENT 0x230
#define LINUX_OFF_RELOCATABLE 0x234
#define LINUX_OFF_XLOADFLAGS 0x236
#define LINUX_OFF_PREF_ADDRESS 0x258
#define LINUX_OFF_INIT_SIZE 0x260
#define LINUX_BOOT_FLAG 0xAA55
#define LINUX_DEFAULT_SETUP_SECTS 4          /* setup_sects 0 means 4 */
#define LINUX_OLD_INITRD_ADDR_MAX 0x37FFFFFFu /* protocol < 2.03 */
#define LINUX_OLD_CMDLINE_SIZE 255u          /* protocol < 2.06 */
#define LINUX_OLD_PREF_ADDRESS 0x100000u     /* bzImage load address before 2.10 said otherwise */
#define LINUX_PE_OFFSET_PTR 0x3C             /* MS-DOS header: file offset of the PE header */

static bool has_pe(const uint8_t *buf, size_t len)
{
	if (len < LINUX_PE_OFFSET_PTR + 4 || buf[0] != 'M' || buf[1] != 'Z')
		return false;
	uint32_t pe = le32_load(buf + LINUX_PE_OFFSET_PTR);
	if (pe > len || len - pe < 4)
		return false;
	return buf[pe] == 'P' && buf[pe + 1] == 'E' && buf[pe + 2] == 0 && buf[pe + 3] == 0;
}

int linux_header_parse(const uint8_t *buf, size_t len, uint64_t file_size, struct linux_header *h,
		       struct diag *d)
{
	*h = (struct linux_header){ 0 };

	if (file_size < LINUX_HEADER_BYTES) {
		diag_error(d, "linux.too_small",
			   "kernel: the file has %llu bytes, too small for a Linux boot header",
			   (unsigned long long)file_size);
		return AS_ECORRUPT;
	}
	if (len < LINUX_HEADER_BYTES || len > file_size) {
		diag_error(d, "linux.buffer",
			   "kernel: %zu bytes given to the header parser; it needs the first %u of "
			   "the %llu-byte file",
			   len, LINUX_HEADER_BYTES, (unsigned long long)file_size);
		return AS_EINVAL;
	}

	uint16_t flag = le16_load(buf + LINUX_OFF_BOOT_FLAG);
	if (flag != LINUX_BOOT_FLAG) {
		diag_error(d, "linux.boot_flag",
			   "kernel: boot flag at 0x1FE is 0x%04X, not 0xAA55: not a Linux kernel image",
			   flag);
		return AS_ECORRUPT;
	}
	if (le32_load(buf + LINUX_OFF_HEADER) != LINUX_HDR_MAGIC) {
		diag_error(d, "linux.magic",
			   "kernel: no \"HdrS\" signature at 0x202: a kernel older than boot "
			   "protocol 2.00, or not a kernel");
		return AS_ECORRUPT;
	}

	h->version = le16_load(buf + LINUX_OFF_VERSION);
	if (h->version < LINUX_MIN_PROTOCOL) {
		diag_error(d, "linux.old_protocol",
			   "kernel: boot protocol %u.%02u is older than the 2.02 we need",
			   h->version >> 8, h->version & 0xFF);
		return AS_EUNSUPP;
	}

	h->loadflags = buf[LINUX_OFF_LOADFLAGS];
	if (!(h->loadflags & LINUX_LOADED_HIGH)) {
		diag_error(d, "linux.zimage",
			   "kernel: loadflags 0x%02X lack LOADED_HIGH: a zImage, which must load "
			   "below 1 MiB; only bzImage is supported",
			   h->loadflags);
		return AS_EUNSUPP;
	}

	h->setup_sects = buf[LINUX_OFF_SETUP_SECTS];
	uint32_t sects = h->setup_sects ? h->setup_sects : LINUX_DEFAULT_SETUP_SECTS;
	h->setup_bytes = (sects + 1) * LINUX_SETUP_SECTOR;
	if (h->setup_bytes >= file_size) {
		diag_error(d, "linux.setup_size",
			   "kernel: setup of %u bytes (%u sectors) leaves nothing of the %llu-byte "
			   "file for the kernel",
			   h->setup_bytes, sects, (unsigned long long)file_size);
		return AS_ECORRUPT;
	}
	h->kernel_bytes = file_size - h->setup_bytes;

	/* Before 2.04 syssize is 16 bits wide and cannot describe a bzImage: not checked then. */
	if (h->version >= 0x0204) {
		h->syssize = le32_load(buf + LINUX_OFF_SYSSIZE);
		/* The build rounds the size up to a whole 16-byte paragraph. */
		if ((uint64_t)h->syssize * 16 > h->kernel_bytes + 15) {
			diag_error(d, "linux.syssize",
				   "kernel: syssize says %llu bytes of kernel but the file holds "
				   "only %llu after the setup",
				   (unsigned long long)h->syssize * 16,
				   (unsigned long long)h->kernel_bytes);
			return AS_ECORRUPT;
		}
	} else {
		h->syssize = le16_load(buf + LINUX_OFF_SYSSIZE);
	}

	h->initrd_addr_max = h->version >= 0x0203 ? le32_load(buf + LINUX_OFF_INITRD_ADDR_MAX)
						   : LINUX_OLD_INITRD_ADDR_MAX;
	if (h->version >= 0x0205) {
		h->kernel_alignment = le32_load(buf + LINUX_OFF_KERNEL_ALIGNMENT);
		h->relocatable = buf[LINUX_OFF_RELOCATABLE];
	}
	h->cmdline_size = h->version >= 0x0206 ? le32_load(buf + LINUX_OFF_CMDLINE_SIZE)
					       : LINUX_OLD_CMDLINE_SIZE;
	if (h->version >= 0x020A) {
		h->pref_address = le64_load(buf + LINUX_OFF_PREF_ADDRESS);
		h->init_size = le32_load(buf + LINUX_OFF_INIT_SIZE);
	} else {
		h->pref_address = LINUX_OLD_PREF_ADDRESS;
	}
	if (h->version >= 0x020C)
		h->xloadflags = le16_load(buf + LINUX_OFF_XLOADFLAGS);
	h->has_pe_header = has_pe(buf, len);
	return 0;
}
