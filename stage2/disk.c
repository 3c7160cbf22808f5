/* SPDX-License-Identifier: BSD-2-Clause */
#include "stage2/disk.h"

#include "common/errors.h"
#include "common/features.h"
#include "common/le.h"
#include "common/mbr.h"
#include "common/mem.h"
#include "common/tsc.h"
#include "stage2/bioscall.h"
#include "stage2/console.h"
#include "stage2/copy.h"
#include "stage2/layout.h"

#define INT13_MAX_SECTORS 127u   /* Phoenix EDD: the most one AH=42h call may move */
#define DAP_SIZE 16
#define EDD_BUF_SIZE 0x1Eu       /* SeaBIOS fails below 0x1A; 0x1E is EDD 2.x */
#define EDD_OFF_CHS_CYLS 0x04
#define EDD_OFF_CHS_HEADS 0x08
#define EDD_OFF_CHS_SPT 0x0C
#define EDD_OFF_SECTORS 0x10
#define EDD_OFF_BPS 0x18
#define DISK_SIZE_UNKNOWN (1ULL << 40) /* sectors, when the BIOS will not say */
/* A read smaller than this reads on to this size, and what the bounce buffer then holds serves
 * the reads after it: the GPT's entry arrays, directories and anysector.cfg come one or two
 * sectors at a time, and each AH=42h call costs the BIOS a whole command (on 512-byte sectors
 * the two GPT arrays alone were 66 of 1351 calls). */
#define READ_AHEAD_BYTES 16384u

/* One BIOS drive (a blockdev's priv). */
struct int13_drive {
	uint8_t drive;
	uint8_t status;              /* AH of the last failed call */
};

/* The AH=42h calls made since int13_log_start, as runs of calls of one size at consecutive LBAs
 * (a contiguous file read in max_io pieces is one run): make bench's floor reader repeats
 * exactly these calls. A boot that needs more runs than this lists only the first ones. */
#define LOG_RUNS 64u
struct call_run {
	uint64_t lba;
	uint32_t count, calls;
};

static struct int13_drive boot_drive, other_drive;
static struct call_run runs[LOG_RUNS];
static struct {
	uint32_t calls;              /* AH=42h calls made, retries included */
	uint64_t bytes;              /* moved by the calls that succeeded */
	bool read_ahead;             /* off when the disk's size is unknown or a read-ahead failed */
	uint64_t held_lba;           /* the bounce buffer holds held_count sectors from here */
	uint32_t held_count;
	bool logging;                /* int13_log_start was called */
	uint32_t log_calls;          /* calls since then */
	uint32_t log_runs;           /* entries of runs[] in use */
} disk;

/* Real-mode-reachable buffers (stage2's bss is below 1 MiB). The DAP buffer address is the
 * 64 KiB-aligned bounce buffer: 4-byte aligned (NVMe) and never crossing a 64 KiB boundary. */
static uint8_t dap[DAP_SIZE] __attribute__((aligned(16)));
static uint8_t edd[EDD_BUF_SIZE] __attribute__((aligned(16)));
static uint8_t scratch[BDEV_MAX_SECTOR_SIZE] __attribute__((aligned(16)));

/* A sector must hold at least the MBR record and at most what our buffers hold. */
static bool sector_size_ok(uint32_t v)
{
	return v >= MBR_RECORD_SIZE && v <= BDEV_MAX_SECTOR_SIZE && !(v & (v - 1));
}

static void int13_reset(struct blockdev *dev)
{
	struct int13_drive *d = dev->priv;
	struct biosregs r;

	initregs(&r);
	r.ah = 0x00;
	r.dl = d->drive;
	bios_call(0x13, &r, &r);
}

#if FEATURE_IO_CLOCK
/* make bench's account of stage2's own time for the kernel and initrd (bench/report.py): the
 * host sees only when lines arrive, so how that time splits between the BIOS's AH=42h calls,
 * the copies out of the bounce buffer and the rest is taken here, by the time stamp counter,
 * on CPUs that have one (a CPU without would fault on rdtsc). */
static struct {
	bool on;
	uint64_t start, calls, copies;
} io_clock;

static bool cpu_has_tsc(void)
{
	uint32_t before, after, a = 1, b, c, d;

	/* CPUID exists where EFLAGS.ID (bit 21) can be flipped */
	__asm__ volatile("pushfl\n\tpopl %0\n\tmovl %0, %1\n\txorl $0x200000, %1\n\t"
			 "pushl %1\n\tpopfl\n\tpushfl\n\tpopl %1\n\tpushl %0\n\tpopfl"
			 : "=&r"(before), "=&r"(after) : : "cc");
	if (!((before ^ after) & 0x200000))
		return false;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
	return d & 0x10;   /* CPUID.1:EDX.TSC */
}

static uint64_t io_clock_now(void)
{
	return io_clock.on ? tsc_read() : 0;
}

/* Copies shorter than this (a sector or two of a directory) are too short to give a rate. */
#define SPREAD_MIN_BYTES 4096u

/* make bench's account of the copies that took far longer per byte than most: under QEMU,
 * stores into pages that held translated code (docs/FIRMWARE.md "SeaBIOS"). Brackets of the
 * ticks a copy took per 64 KiB, by powers of two. */
static struct {
	uint32_t count[32];
	uint64_t ticks[32];
} copy_spread;

static void copy_spread_add(uint64_t ticks, size_t n)
{
	uint64_t per = ticks * 65536 / n;
	unsigned b = 0;

	while (per > 1 && b < 31) {
		per >>= 1;
		b++;
	}
	copy_spread.count[b]++;
	copy_spread.ticks[b] += ticks;
}

/* The copies of at least SPREAD_MIN_BYTES whose bracket lies two or more above the most
 * common one's (at least twice as slow per byte as the slowest copy of that bracket). */
static void copy_spread_print(void)
{
	unsigned mode = 0, slow = 0, all = 0;
	uint64_t ticks = 0;

	for (unsigned b = 0; b < 32; b++) {
		all += copy_spread.count[b];
		if (copy_spread.count[b] > copy_spread.count[mode])
			mode = b;
	}
	for (unsigned b = mode + 2; b < 32; b++) {
		slow += copy_spread.count[b];
		ticks += copy_spread.ticks[b];
	}
	con_printf("disk 0x%02x: copies out of the bounce buffer at least twice as slow per byte as "
		   "most: %u of %u, %llu ticks\n", boot_drive.drive, slow, all,
		   (unsigned long long)ticks);
}
#endif

static void log_call(uint64_t lba, uint32_t count)
{
	uint32_t n = disk.log_runs;

	disk.log_calls++;
	if (n && runs[n - 1].count == count &&
	    runs[n - 1].lba + (uint64_t)count * runs[n - 1].calls == lba)
		runs[n - 1].calls++;
	else if (n < LOG_RUNS)
		runs[disk.log_runs++] = (struct call_run){ lba, count, 1 };
}

void int13_log_start(void)
{
	disk.logging = true;
	disk.log_calls = disk.log_runs = 0;
#if FEATURE_IO_CLOCK
	io_clock.on = cpu_has_tsc();
	io_clock.calls = io_clock.copies = 0;
	memset(&copy_spread, 0, sizeof(copy_spread));
	io_clock.start = io_clock_now();
#endif
}

/* A list shorter than the count (more runs than LOG_RUNS) shows as such: the runs' calls add
 * up to less than the count. */
void int13_print_log(void)
{
	con_printf("disk 0x%02x: %u AH=42h calls for the kernel and initrd (runs of LBA+sectors x "
		   "calls):", boot_drive.drive, (unsigned)disk.log_calls);
#if FEATURE_IO_CLOCK
	uint64_t total = io_clock_now() - io_clock.start;   /* make bench's stretch ends here */
#endif
	for (uint32_t i = 0; i < disk.log_runs; i++)
		con_printf("%s %llu+%ux%u", i % 6 ? "" : "\n ", (unsigned long long)runs[i].lba,
			   (unsigned)runs[i].count, (unsigned)runs[i].calls);
	con_printf("\n");
#if FEATURE_IO_CLOCK
	if (io_clock.on)
		con_printf("disk 0x%02x: time stamp counter, from loading to the list's first line: "
			   "%llu, in the AH=42h calls %llu, copying out of the bounce buffer %llu\n",
			   boot_drive.drive, (unsigned long long)total,
			   (unsigned long long)io_clock.calls, (unsigned long long)io_clock.copies);
	if (io_clock.on)
		copy_spread_print();
#endif
}

/* One AH=42h call into the bounce buffer, or (ah 0x43, AL 0: no verify) one AH=43h call from
 * it. Only CF is trusted: some BIOSes clobber AX even on success (Hyper-V). Either way the bounce
 * buffer then holds those sectors as they are on the disk. */
static bool int13_call(struct blockdev *dev, uint64_t lba, uint32_t count, uint8_t ah)
{
	struct int13_drive *d = dev->priv;
	struct biosregs r;

	disk.held_count = 0;
	memset(dap, 0, sizeof dap);
	dap[0] = DAP_SIZE;
	le16_store(dap + 2, (uint16_t)count);
	le16_store(dap + 4, rm_off(__bounce));
	le16_store(dap + 6, rm_seg(__bounce));
	le64_store(dap + 8, lba);
	initregs(&r);
	r.ah = ah;
	r.dl = d->drive;
	r.ds = rm_seg(dap);
	r.si = rm_off(dap);
#if FEATURE_IO_CLOCK
	uint64_t t = io_clock_now();
#endif
	bios_call(0x13, &r, &r);
	bool rd = ah == 0x42;     /* the counts and the log are of reads */
#if FEATURE_IO_CLOCK
	if (rd)
		io_clock.calls += io_clock_now() - t;
#endif
	if (rd) {
		disk.calls++;
		if (disk.logging)
			log_call(lba, count);
	}
	if (regs_cf(&r)) {
		d->status = r.ah;
		return false;
	}
	if (rd)
		disk.bytes += (uint64_t)count * dev->sector_size;
	disk.held_lba = lba;
	disk.held_count = count;
	return true;
}

/* The gap build writes nothing: its sentences keep "read" in the format (16 bytes less). */
#if FEATURE_BOOT_STATE
#define IO_WORD(w) "%s"
#else
#define IO_WORD(w) w
#endif

/* The block layer's word on a retried read (done "read", verb "read") or write. */
static void io_note(struct blockdev *dev, uint64_t lba, uint32_t count, unsigned tries, bool ok,
		    const char *done, const char *verb)
{
	struct int13_drive *d = dev->priv;

	(void)done;
	(void)verb;
	if (ok)
		con_printf("disk 0x%02x: LBA %llu+%u " IO_WORD("read") " on try %u, after BIOS error "
			   "0x%02x\n", d->drive, (unsigned long long)lba, count,
#if FEATURE_BOOT_STATE
			   done,
#endif
			   tries, d->status);
	else
		con_printf("disk 0x%02x: cannot " IO_WORD("read") " LBA %llu (%u-byte sectors): BIOS "
			   "int 13h error 0x%02x after %u tries\n", d->drive,
#if FEATURE_BOOT_STATE
			   verb,
#endif
			   (unsigned long long)lba, dev->sector_size, d->status, tries);
}

static void int13_note(struct blockdev *dev, uint64_t lba, uint32_t count, unsigned tries, bool ok)
{
	io_note(dev, lba, count, tries, ok, "read", "read");
}

static void int13_write_note(struct blockdev *dev, uint64_t lba, uint32_t count, unsigned tries,
			     bool ok)
{
	io_note(dev, lba, count, tries, ok, "written", "write");
}

/* The copy of a read out of the bounce buffer, which every byte of the kernel and initrd goes
 * through (stage2/copy.c). */
static void bounce_copy(void *dst, const void *src, size_t n)
{
#if FEATURE_IO_CLOCK
	uint64_t t = io_clock_now();
#endif
#if FEATURE_FAST_COPY
	bounce_copy_out(dst, src, n);
#else
	memcpy(dst, src, n);
#endif
#if FEATURE_IO_CLOCK
	t = io_clock_now() - t;
	io_clock.copies += t;
	if (io_clock.on && n >= SPREAD_MIN_BYTES)
		copy_spread_add(t, n);
#endif
}

/* A one-shot read through the bounce buffer, served from what it holds when it can, reading
 * ahead when the request is small. The first read-ahead that fails turns read-ahead off for the
 * rest of the boot and fails the request: common/blockdev.c's retries (the one retry policy)
 * then read exactly what was asked, so a bad sector beyond a request never fails it, and a
 * persistently bad sector costs one read-ahead plus the BDEV_READ_TRIES tries that are told. */
static int int13_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	uint32_t ss = dev->sector_size;

	if (lba >= disk.held_lba && lba - disk.held_lba < disk.held_count &&
	    count <= disk.held_count - (lba - disk.held_lba)) {
		bounce_copy(buf, __bounce + (size_t)(lba - disk.held_lba) * ss, (size_t)count * ss);
		return 0;
	}
	uint32_t ahead = READ_AHEAD_BYTES / ss;
	if (ahead > dev->max_io)
		ahead = dev->max_io;
	if (ahead > dev->sectors - lba)
		ahead = (uint32_t)(dev->sectors - lba);
	bool ra = disk.read_ahead && count < ahead;
	if (!int13_call(dev, lba, ra ? ahead : count, 0x42)) {
		if (ra)
			disk.read_ahead = false;
		return AS_EIO;
	}
	bounce_copy(buf, __bounce, (size_t)count * ss);
	return 0;
}

/* One AH=43h call: the state block (common/bootstate.h) is the only thing stage2 writes. */
static int int13_write(struct blockdev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	memcpy(__bounce, buf, (size_t)count * dev->sector_size);
	return int13_call(dev, lba, count, 0x43) ? 0 : AS_EIO;
}

void int13_print_counts(void)
{
	con_printf("disk 0x%02x: %u int 13h AH=42h calls, %llu bytes read\n", boot_drive.drive,
		   (unsigned)disk.calls, (unsigned long long)disk.bytes);
}

void int13_print_read_error(const char *path, const struct blockdev *dev)
{
	uint64_t lba = bdev_disk_err_lba(dev);
	while (dev->parent)
		dev = dev->parent;
	const struct int13_drive *d = dev->priv;
	con_printf("reading %s failed: disk 0x%02x cannot read LBA %llu (BIOS int 13h error 0x%02x "
		   "after %u tries)\n", path, d->drive, (unsigned long long)lba, d->status,
		   BDEV_READ_TRIES);
}

static int open_drive(struct blockdev *dev, struct int13_drive *d, uint8_t drive,
		      uint32_t stage1_bps)
{
	struct biosregs r;
	uint32_t bps = 0;
	uint64_t sectors = 0;

	d->drive = drive;
	initregs(&r);
	r.ah = 0x41;
	r.bx = 0x55AA;
	r.dl = drive;
	bios_call(0x13, &r, &r);
	if (regs_cf(&r) || r.bx != 0xAA55 || !(r.cx & 1)) {
		con_printf("disk 0x%02x: the BIOS offers no int 13h extensions (AH=41h), which stage2 "
			   "needs to read the disk\n", drive);
		return AS_EUNSUPP;
	}

	memset(edd, 0, sizeof edd);
	le16_store(edd, EDD_BUF_SIZE);
	initregs(&r);
	r.ah = 0x48;
	r.dl = drive;
	r.ds = rm_seg(edd);
	r.si = rm_off(edd);
	bios_call(0x13, &r, &r);
	if (!regs_cf(&r)) {
		bps = le16_load(edd + EDD_OFF_BPS);
		sectors = le64_load(edd + EDD_OFF_SECTORS);
		if (!sectors)
			sectors = (uint64_t)le32_load(edd + EDD_OFF_CHS_CYLS) *
				  le32_load(edd + EDD_OFF_CHS_HEADS) * le32_load(edd + EDD_OFF_CHS_SPT);
	}
	if (!sector_size_ok(bps)) {
		if (!sector_size_ok(stage1_bps)) {
			con_printf("disk 0x%02x: the BIOS gives no usable sector size (AH=48h says %u, "
				   "stage1 used %u)\n", drive, bps, stage1_bps);
			return AS_EUNSUPP;
		}
		bps = stage1_bps;
	}
	disk.read_ahead = sectors != 0;
	if (!sectors) {
		con_printf("disk 0x%02x: the BIOS does not say how large the disk is; assuming it is "
			   "large enough\n", drive);
		sectors = DISK_SIZE_UNKNOWN;
	}

	uint32_t max_io = BOUNCE_BYTES / bps;
	*dev = (struct blockdev){
		.sector_size = bps,
		.phys_size = bps,         /* int 13h does not report the physical sector size */
		.align_offset = 0,
		.sectors = sectors,
		.max_io = max_io < INT13_MAX_SECTORS ? max_io : INT13_MAX_SECTORS,
		.read = int13_read,
		.write = FEATURE_BOOT_STATE ? int13_write : 0,
		.reset = int13_reset,
		.read_note = int13_note,
		.write_note = FEATURE_BOOT_STATE ? int13_write_note : 0,
		.priv = d,
		.scratch = scratch,
	};
	return 0;
}

int int13_open(struct blockdev *dev, uint8_t drive, uint32_t stage1_bps)
{
	return open_drive(dev, &boot_drive, drive, stage1_bps);
}

int int13_open_other(struct blockdev *dev, uint8_t drive)
{
	return open_drive(dev, &other_drive, drive, 0);
}
