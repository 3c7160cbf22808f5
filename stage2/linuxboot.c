/* SPDX-License-Identifier: BSD-2-Clause */
/* Loading a bzImage, its initrd(s) and command line, and entering the kernel through the 16-bit
 * boot protocol (Documentation/arch/x86/boot.rst), so the kernel's own setup code asks the BIOS
 * for the memory map, EDD and video. Layout, as boot.rst's "modern bzImage" example:
 *   __linux_rm + 0x0000   setup (boot sector + real-mode code), at most 32 KiB
 *   __linux_rm + 0xE000   end of heap / initial stack (heap_end_ptr = 0xE000 - 0x200)
 *   __linux_rm + 0xE000   command line, up to the end of the 64 KiB segment
 *   1 MiB                 the protected-mode kernel
 *   high                  the initrd(s), as high as initrd_addr_max and the memory map allow
 * A unified kernel image (common/uki.h) is booted the same way from its sections: .linux is the
 * bzImage, .ucode then .initrd the initrd block; its headers are read into the setup's heap
 * (__linux_rm + 0x8000, free until the kernel starts) first. */
#include "stage2/linuxboot.h"

#include "common/bits.h"
#include "common/errors.h"
#include "common/features.h"
#include "common/initrd.h"
#include "common/le.h"
#include "common/linux.h"
#include "common/mem.h"
#include "common/pin.h"
#include "common/str.h"
#include "common/uki.h"
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
#define SCRATCH_OFF 0x8000u          /* the heap: a UKI's headers, then its pin's reads */
#define SCRATCH_BYTES (HEAP_END - 0x200 - SCRATCH_OFF)

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

/* A part of a UKI in memory: bytes [off, off + len) of the file lie at at; an initrd piece
 * lies at byte rd_off of the initrd block. */
struct piece {
	uint64_t off, len;
	const uint8_t *at;
	uint64_t rd_off;
};

/* A UKI's initrd block (p[2], p[3]): .ucode, then .initrd, each at a multiple of
 * INITRD_JOIN_ALIGN as common/initrd.h joins files. Returns the pieces in p and sets *total. */
static unsigned uki_initrds(const struct uki *u, struct piece *p, uint64_t *total)
{
	static const uint8_t order[] = { UKI_UCODE, UKI_INITRD };
	unsigned n = 2;
	uint64_t t = 0;

	for (unsigned i = 0; i < sizeof order; i++) {
		if (!uki_has(u, order[i]))
			continue;
		t = ALIGN_UP(t, INITRD_JOIN_ALIGN);
		p[n] = (struct piece){ u->sec[order[i]].off, u->sec[order[i]].len, 0, t };
		t += p[n++].len;
	}
	*total = t;
	return n;
}

/* Reads the initrd pieces p[2..n) of the UKI kf into the block at rd (zeros between). */
static int uki_read_initrds(struct fat_fs *fs, const struct cfg_entry *e,
			    const struct fat_file *kf, struct piece *p, unsigned n, uint8_t *rd)
{
	uint64_t end = 0;
	int rc;

	for (unsigned i = 2; i < n; i++) {
		p[i].at = rd + p[i].rd_off;
		memset(rd + end, 0, (size_t)(p[i].rd_off - end));
		con_printf("initrd: %s at 0x%llx, %u KiB at 0x%x\n", e->kernel,
			   (unsigned long long)p[i].off, kib(p[i].len), (unsigned)(uintptr_t)p[i].at);
		if ((rc = load(fs, e->kernel, kf, p[i].off, (uintptr_t)p[i].at, (uint32_t)p[i].len)))
			return rc;
		end = p[i].rd_off + p[i].len;
	}
	return 0;
}

/* A pinned UKI is one file to its pin (common/pin.h): hashed in file order, the parts in memory
 * where they lie (setup, kernel, the initrd pieces: what runs is what was hashed), the rest (the
 * stub, .osrel, .cmdline, a signature) read again through the heap. */
static int pin_uki(struct fat_fs *fs, const struct cfg_entry *e, const struct fat_file *f,
		   const struct piece *pieces, unsigned n)
{
	struct piece p[4];   /* sorted by where they are in the file */
	struct sha256 s;
	uint8_t got[SHA256_BYTES];
	uint64_t pos = 0;
	int rc;

	if (!pin_has(e, PIN_KERNEL))
		return 0;
	memcpy(p, pieces, n * sizeof *p);
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j && p[j - 1].off > p[j].off; j--) {
			struct piece t = p[j];
			p[j] = p[j - 1];
			p[j - 1] = t;
		}
	sha256_init(&s);
	for (unsigned i = 0; i <= n; i++) {
		uint64_t start = i < n ? p[i].off : f->size;
		while (pos < start) {
			uint32_t k = start - pos < SCRATCH_BYTES ? (uint32_t)(start - pos) : SCRATCH_BYTES;
			if ((rc = load(fs, e->kernel, f, pos, (uintptr_t)__linux_rm + SCRATCH_OFF, k)))
				return rc;
			sha256_update(&s, __linux_rm + SCRATCH_OFF, k);
			pos += k;
		}
		if (i < n && p[i].off + p[i].len > pos) {
			sha256_update(&s, p[i].at + (pos - p[i].off), (size_t)(p[i].off + p[i].len - pos));
			pos = p[i].off + p[i].len;
		}
	}
	sha256_final(&s, got);
	return pin_compare(e, PIN_KERNEL, got, &con_diag);
}

int linux_boot(struct fat_fs *fs, const struct cfg_entry *e, const char *cmdline,
	       struct measure *m)
{
	static struct uki u;
	struct fat_file kf;
	struct linux_header h;
	bool uki = FEATURE_UKI && e->kind == CFG_KIND_UKI;
	uint64_t base = 0;
	int rc;

	con_printf("loading %s\n", e->kernel);
	int13_log_start();
	if ((rc = open_file(fs, "kernel", e->kernel, &kf)))
		return rc;
	uint64_t ksize = kf.size;
	if (uki) {
		/* the same judgement as the menu's, on the file as it is now */
		uint8_t *head = __linux_rm + SCRATCH_OFF;
		uint32_t hn = kf.size < UKI_HEAD_BYTES ? kf.size : UKI_HEAD_BYTES;
		if ((rc = load(fs, e->kernel, &kf, 0, (uintptr_t)head, hn)) ||
		    (rc = uki_parse(head, hn, kf.size, e->kernel, CFG_CMDLINE_MAX, &u, &con_diag)))
			return rc;
		base = u.sec[UKI_LINUX].off;
		ksize = u.sec[UKI_LINUX].len;
	}
	uint32_t n = ksize < sizeof hdr ? (uint32_t)ksize : sizeof hdr;
	if ((rc = load(fs, e->kernel, &kf, base, (uintptr_t)hdr, n)))
		return rc;
	if ((rc = linux_header_parse(hdr, n, ksize, &h, &con_diag)))
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
	struct piece p[4];
	unsigned np = 2;
	uint64_t total;
	if (uki)
		np = uki_initrds(&u, p, &total);
	else if ((rc = initrd_join_open(fs, e, &rd, &con_diag)))
		return rc;
	else
		total = rd.total;
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
	uint8_t *rd_at = (uint8_t *)(uintptr_t)initrd_addr;
	if ((rc = load(fs, e->kernel, &kf, base, (uintptr_t)rm, h.setup_bytes)))
		return rc;
	con_printf("kernel: %u KiB at 0x%x, protocol %u.%02u\n", kib(h.kernel_bytes),
		   LINUX_KERNEL_ADDR, h.version >> 8, h.version & 0xFF);
	if ((rc = load(fs, e->kernel, &kf, base + h.setup_bytes, LINUX_KERNEL_ADDR,
		       (uint32_t)h.kernel_bytes)) ||
	    (rc = uki ? uki_read_initrds(fs, e, &kf, p, np, rd_at)
		      : initrd_join_read(&rd, e, rd_at, load_initrd, fs)))
		return rc;
	/* A pinned kernel is hashed where it lies, in its two pieces, and each pinned initrd once
	 * read, before anything of them runs (common/pin.h); nothing unpinned is hashed. */
	p[0] = (struct piece){ base, h.setup_bytes, rm, 0 };
	p[1] = (struct piece){ base + h.setup_bytes, h.kernel_bytes,
			       (const uint8_t *)LINUX_KERNEL_ADDR, 0 };
	if (uki)
		rc = pin_uki(fs, e, &kf, p, np);
	else if (!(rc = pin_check(e, PIN_KERNEL, rm, h.setup_bytes, (const void *)LINUX_KERNEL_ADDR,
				  (size_t)h.kernel_bytes, &con_diag)))
		rc = initrd_join_pins(&rd, e, rd_at, &con_diag);
	if (rc)
		return rc;
	/* Measured once nothing can fail any more: the PCRs then hold what runs (common/measure.h);
	 * a UKI's .linux as the kernel, its .ucode and .initrd as initrds. */
	measure_file(m, MEASURE_PCR_FILES, "kernel", e->kernel, rm, h.setup_bytes,
		     (const void *)LINUX_KERNEL_ADDR, (size_t)h.kernel_bytes);
	for (unsigned i = 2; i < np; i++)
		measure_file(m, MEASURE_PCR_FILES, "initrd", e->kernel, p[i].at, (size_t)p[i].len,
			     0, 0);
	for (unsigned i = 0; !uki && i < e->ninitrd; i++)
		measure_file(m, MEASURE_PCR_FILES, "initrd", e->initrd[i], rd_at + rd.off[i],
			     rd.f[i].size, 0, 0);
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
