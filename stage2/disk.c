#include "stage2/disk.h"

#include "common/errors.h"
#include "common/le.h"
#include "common/mbr.h"
#include "common/mem.h"
#include "stage2/bioscall.h"
#include "stage2/console.h"
#include "stage2/layout.h"

#define INT13_TRIES 3            /* per transfer size, with an AH=00h reset before each retry */
#define INT13_MAX_SECTORS 127u   /* Phoenix EDD: the most one AH=42h call may move */
#define DAP_SIZE 16
#define EDD_BUF_SIZE 0x1Eu       /* SeaBIOS fails below 0x1A; 0x1E is EDD 2.x */
#define EDD_OFF_CHS_CYLS 0x04
#define EDD_OFF_CHS_HEADS 0x08
#define EDD_OFF_CHS_SPT 0x0C
#define EDD_OFF_SECTORS 0x10
#define EDD_OFF_BPS 0x18
#define DISK_SIZE_UNKNOWN (1ULL << 40) /* sectors, when the BIOS will not say */

static struct {
	uint8_t drive;
	uint8_t status;              /* AH of the last failed call */
	uint32_t calls;              /* AH=42h calls made, retries included */
	uint64_t bytes;              /* moved by the calls that succeeded */
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

static void int13_reset(void)
{
	struct biosregs r;

	initregs(&r);
	r.ah = 0x00;
	r.dl = disk.drive;
	bios_call(0x13, &r, &r);
}

/* One AH=42h call into the bounce buffer. Only CF is trusted: some BIOSes clobber AX even on
 * success (Hyper-V). */
static bool int13_read_once(uint64_t lba, uint32_t count, uint32_t sector_bytes)
{
	struct biosregs r;

	memset(dap, 0, sizeof dap);
	dap[0] = DAP_SIZE;
	le16_store(dap + 2, (uint16_t)count);
	le16_store(dap + 4, rm_off(__bounce));
	le16_store(dap + 6, rm_seg(__bounce));
	le64_store(dap + 8, lba);
	initregs(&r);
	r.ah = 0x42;
	r.dl = disk.drive;
	r.ds = rm_seg(dap);
	r.si = rm_off(dap);
	bios_call(0x13, &r, &r);
	disk.calls++;
	if (!regs_cf(&r)) {
		disk.bytes += (uint64_t)count * sector_bytes;
		return true;
	}
	disk.status = r.ah;
	return false;
}

/* Retries a failed transfer after a reset, then reads it as two halves, down to one sector:
 * the failure that remains names the one LBA that cannot be read. */
static int read_chunk(struct blockdev *dev, uint64_t lba, uint32_t count, uint8_t *buf)
{
	for (int t = 0; t < INT13_TRIES; t++) {
		if (t)
			int13_reset();
		if (int13_read_once(lba, count, dev->sector_size)) {
			if (t)
				con_printf("disk 0x%02x: LBA %llu+%u read on try %d, after BIOS error "
					   "0x%02x\n", disk.drive, (unsigned long long)lba, count, t + 1,
					   disk.status);
			memcpy(buf, __bounce, (size_t)count * dev->sector_size);
			return 0;
		}
	}
	if (count > 1) {
		uint32_t half = count / 2;
		int rc = read_chunk(dev, lba, half, buf);
		return rc ? rc : read_chunk(dev, lba + half, count - half, buf + (size_t)half * dev->sector_size);
	}
	dev->err_lba = lba;
	con_printf("disk 0x%02x: cannot read LBA %llu (%u-byte sectors): BIOS int 13h error 0x%02x "
		   "after %d tries\n", disk.drive, (unsigned long long)lba, dev->sector_size,
		   disk.status, INT13_TRIES);
	return AS_EIO;
}

void int13_print_counts(void)
{
	con_printf("disk 0x%02x: %u int 13h AH=42h calls, %llu bytes read\n", disk.drive,
		   (unsigned)disk.calls, (unsigned long long)disk.bytes);
}

void int13_print_read_error(const char *path, uint64_t lba)
{
	con_printf("reading %s failed: disk 0x%02x cannot read LBA %llu (BIOS int 13h error 0x%02x "
		   "after %d tries)\n", path, disk.drive, (unsigned long long)lba, disk.status,
		   INT13_TRIES);
}

static int int13_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	return read_chunk(dev, lba, count, buf);
}

int int13_open(struct blockdev *dev, uint8_t drive, uint32_t stage1_bps)
{
	struct biosregs r;
	uint32_t bps = 0;
	uint64_t sectors = 0;

	disk.drive = drive;
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
		.scratch = scratch,
	};
	return 0;
}
