/* SPDX-License-Identifier: BSD-2-Clause */
/* Loading a bzImage, its initrd(s) and command line, and entering the kernel through the 16-bit
 * boot protocol (Documentation/arch/x86/boot.rst), so the kernel's own setup code asks the BIOS
 * for the memory map, EDD and video. Layout, as boot.rst's "modern bzImage" example:
 *   __linux_rm + 0x0000   setup (boot sector + real-mode code), at most 32 KiB
 *   __linux_rm + 0xE000   end of heap / initial stack (heap_end_ptr = 0xE000 - 0x200)
 *   __linux_rm + 0xE000   command line, up to the end of the 64 KiB segment
 *   1 MiB                 the protected-mode kernel
 *   high                  the initrd(s), as high as initrd_addr_max and the memory map allow */
#include "stage2/linuxboot.h"

#include "common/bits.h"
#include "common/errors.h"
#include "common/initrd.h"
#include "common/le.h"
#include "common/linux.h"
#include "common/mem.h"
#include "common/pin.h"
#include "common/str.h"
#include "stage2/bioscall.h"
#include "stage2/console.h"
#include "stage2/disk.h"
#include "stage2/layout.h"
#include "stage2/memmap.h"
#include "stage2/tpm.h"

#define SETUP_MAX 0x8000u
#define HEAP_END 0xE000u
#define CMDLINE_OFF 0xE000u
#define LOADER_TYPE_UNDEFINED 0xFF
#define INITRD_ALIGN 4096u
#define ADDR_LIMIT_32 0x100000000ULL

static struct memmap mm;
static uint8_t hdr[LINUX_HEADER_BYTES];
static struct initrd_join rd;

static uint32_t kib(uint64_t bytes)
{
	return (uint32_t)(ALIGN_UP(bytes, 1024) >> 10);
}

static int open_file(struct fat_fs *fs, const char *what, const char *path, struct fat_file *f)
{
	int rc = fat_open(fs, path, f, &con_diag);
	if (rc) {
		con_printf("cannot open the %s %s: %s\n", what, path, as_strerror(rc));
		return rc;
	}
	if (f->is_dir) {
		con_printf("the %s %s is a directory\n", what, path);
		return AS_EISDIR;
	}
	return 0;
}

static int load(struct fat_fs *fs, const char *path, const struct fat_file *f, uint64_t off,
		uint64_t addr, uint32_t len)
{
	int rc;

	if (!len)
		return 0;
	rc = fat_read(fs, f, off, (void *)(uintptr_t)addr, len, &con_diag);
	if (rc == AS_EIO)
		int13_print_read_error(path, fs->dev);
	else if (rc)
		con_printf("reading %s failed (%s)\n", path, as_strerror(rc));
	return rc;
}

static int load_initrd(void *fs, const char *path, const struct fat_file *f, void *at)
{
	con_printf("initrd: %s, %u KiB at 0x%x\n", path, kib(f->size), (unsigned)(uintptr_t)at);
	return load(fs, path, f, 0, (uintptr_t)at, f->size);
}

int linux_boot(struct fat_fs *fs, const struct cfg_entry *e, const char *cmdline,
	       struct measure *m)
{
	struct fat_file kf;
	struct linux_header h;
	int rc;

	con_printf("loading %s\n", e->kernel);
	int13_log_start();
	if ((rc = open_file(fs, "kernel", e->kernel, &kf)))
		return rc;
	uint32_t n = kf.size < sizeof hdr ? kf.size : sizeof hdr;
	if ((rc = load(fs, e->kernel, &kf, 0, (uintptr_t)hdr, n)))
		return rc;
	if ((rc = linux_header_parse(hdr, n, kf.size, &h, &con_diag)))
		return rc;
	if (h.setup_bytes > SETUP_MAX) {
		con_printf("%s: its real-mode setup is %u bytes; the boot protocol allows %u\n",
			   e->kernel, h.setup_bytes, SETUP_MAX);
		return AS_EUNSUPP;
	}

	size_t cmdline_len = str_len(cmdline);
	if (cmdline_len > h.cmdline_size) {
		con_printf("the command line is %u bytes; this kernel accepts at most %u\n",
			   (unsigned)cmdline_len, h.cmdline_size);
		return AS_ETOOBIG;
	}

	if (!memmap_read(&mm))
		return AS_EUNSUPP;
	uint32_t rm_bytes = (uint32_t)(__linux_rm_end - __linux_rm);
	if (!mem_fits(mm.e, mm.count, (uintptr_t)__linux_rm, rm_bytes)) {
		con_printf("the kernel's real-mode segment at 0x%x (%u KiB) is not free RAM in the BIOS "
			   "memory map (an extended BIOS data area this low?)\n",
			   (unsigned)(uintptr_t)__linux_rm, rm_bytes >> 10);
		return AS_ENOSPC;
	}
	uint64_t kernel_span = h.kernel_bytes > h.init_size ? h.kernel_bytes : h.init_size;
	if (!mem_fits(mm.e, mm.count, LINUX_KERNEL_ADDR, kernel_span)) {
		con_printf("the kernel needs %u KiB of RAM at 1 MiB, which the BIOS memory map does not "
			   "offer\n", kib(kernel_span));
		return AS_ENOSPC;
	}

	/* The initrds, joined: sizes first, so the block can be placed before any is read. */
	if ((rc = initrd_join_open(fs, e, &rd, &con_diag)))
		return rc;
	uint64_t total = rd.total;
	uint64_t initrd_addr = 0;
	if (total) {
		uint64_t lo = ALIGN_UP(LINUX_KERNEL_ADDR + kernel_span, INITRD_ALIGN);
		uint64_t hi = (uint64_t)h.initrd_addr_max + 1;
		if (hi > ADDR_LIMIT_32)
			hi = ADDR_LIMIT_32;
		uint64_t largest;
		initrd_addr = mem_place_high(mm.e, mm.count, total, lo, hi, INITRD_ALIGN, &largest);
		if (!initrd_addr) {
			con_printf("the initrd is %u KiB, but the largest that fits in the RAM the BIOS "
				   "reports between the kernel's end (0x%llx) and initrd_addr_max (0x%x) "
				   "is %u KiB\n", kib(total), (unsigned long long)lo, h.initrd_addr_max,
				   (unsigned)(largest >> 10));
			return AS_ENOSPC;
		}
	}

	uint8_t *rm = __linux_rm;
	if ((rc = load(fs, e->kernel, &kf, 0, (uintptr_t)rm, h.setup_bytes)))
		return rc;
	con_printf("kernel: %u KiB at 0x%x, protocol %u.%02u\n", kib(h.kernel_bytes),
		   LINUX_KERNEL_ADDR, h.version >> 8, h.version & 0xFF);
	if ((rc = load(fs, e->kernel, &kf, h.setup_bytes, LINUX_KERNEL_ADDR, (uint32_t)h.kernel_bytes)))
		return rc;
	/* A pinned kernel is hashed where it lies, in its two pieces, and each pinned initrd once
	 * read, before anything of them runs (common/pin.h); nothing unpinned is hashed. */
	if ((rc = pin_check(e, PIN_KERNEL, rm, h.setup_bytes, (const void *)LINUX_KERNEL_ADDR,
			    (size_t)h.kernel_bytes, &con_diag)) ||
	    (rc = initrd_join_read(&rd, e, (uint8_t *)(uintptr_t)initrd_addr, load_initrd, fs)) ||
	    (rc = initrd_join_pins(&rd, e, (const uint8_t *)(uintptr_t)initrd_addr, &con_diag)))
		return rc;
	/* Measured once nothing can fail any more: the PCRs then hold what runs (common/measure.h). */
	measure_file(m, MEASURE_PCR_FILES, "kernel", e->kernel, rm, h.setup_bytes,
		     (const void *)LINUX_KERNEL_ADDR, (size_t)h.kernel_bytes);
	for (unsigned i = 0; i < e->ninitrd; i++)
		measure_file(m, MEASURE_PCR_FILES, "initrd", e->initrd[i],
			     (const uint8_t *)(uintptr_t)initrd_addr + rd.off[i], rd.f[i].size, 0, 0);
	tpm_measure_cmdline(m, cmdline);

	memcpy(rm + CMDLINE_OFF, cmdline, cmdline_len + 1);
	rm[LINUX_OFF_TYPE_OF_LOADER] = LOADER_TYPE_UNDEFINED;
	rm[LINUX_OFF_LOADFLAGS] |= LINUX_CAN_USE_HEAP;
	le16_store(rm + LINUX_OFF_HEAP_END_PTR, HEAP_END - 0x200);
	le32_store(rm + LINUX_OFF_CMD_LINE_PTR, (uint32_t)(uintptr_t)(rm + CMDLINE_OFF));
	le32_store(rm + LINUX_OFF_RAMDISK_IMAGE, (uint32_t)initrd_addr);
	le32_store(rm + LINUX_OFF_RAMDISK_SIZE, (uint32_t)total);

	int13_print_log();
	int13_print_counts();
	con_printf("starting the kernel: %s\n", cmdline);
	con_sync_bios_cursor();
	linux_enter_real_mode(rm_seg(rm), HEAP_END);
}
