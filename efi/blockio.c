/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/blockio.h"

#include "common/bits.h"
#include "common/errors.h"
#include "common/mem.h"
#include "common/tsc.h"

/* A read into a buffer the driver cannot take (not IoAlign-aligned) goes through a bounce buffer
 * of this size, a call per piece: large enough that per-call overhead is small, small enough to
 * allocate anywhere. */
#define BOUNCE_BYTES (1024u * 1024u)

/* A read straight into the caller's buffer moves up to this much in one call: each ReadBlocks
 * call costs the firmware a fixed amount (the request set up, the device's queue driven, its
 * completion polled), so a contiguous kernel or initrd is read in a few calls rather than one
 * per MiB, as EDK2's own FAT driver reads a contiguous run. It stays well below what drivers
 * take in one request (OVMF's VirtioBlk splits at 1 GiB); a driver that refuses it anyway has
 * the request halved by common/blockdev.c's retry. */
#define DIRECT_MAX_BYTES (64u * 1024u * 1024u)

/* The ReadBlocks calls made since efi_blockdev_log_start, on any device, as runs of calls of
 * one size at consecutive LBAs (a contiguous file read in max_io pieces is one run): make
 * bench's floor application repeats exactly these calls. More runs than this are counted, not
 * listed. */
#define LOG_RUNS 256u

static EFI_GUID block_io_guid = EFI_BLOCK_IO_PROTOCOL_GUID;

static struct {
	uint64_t lba;
	uint32_t count, calls;
} runs[LOG_RUNS];
static struct {
	bool on;
	uint32_t calls, runs;
	uint64_t bytes;
	/* make bench's account of BOOTX64.EFI's own time for the kernel and initrd
	 * (bench/report.py): the time stamp counter at the start, in the ReadBlocks calls and in
	 * the copies out of the bounce buffer, taken here since the host sees only when lines
	 * arrive */
	uint64_t tsc_start, tsc_calls, tsc_copies;
} call_log;


static void log_call(uint64_t lba, uint32_t count, uint32_t size)
{
	uint32_t n = call_log.runs;

	call_log.calls++;
	call_log.bytes += (uint64_t)count * size;
	if (n && runs[n - 1].count == count &&
	    runs[n - 1].lba + (uint64_t)count * runs[n - 1].calls == lba)
		runs[n - 1].calls++;
	else if (n < LOG_RUNS)
		runs[call_log.runs++] = (typeof(runs[0])){ lba, count, 1 };
}

void efi_blockdev_log_start(void)
{
	memset(&call_log, 0, sizeof call_log);
	call_log.on = true;
	call_log.tsc_start = tsc_read();
	con_clock_start();
}

/* A list shorter than the count (more runs than LOG_RUNS) shows as such: the runs' calls add
 * up to less than the count. */
void efi_blockdev_print_log(void)
{
	/* make bench's timed stretch ends with this line, so it says no more than the count:
	 * under OVMF and TCG each character costs the firmware about 15 us (screen and serial line) */
	con_printf("disk: %u ReadBlocks calls, %llu bytes read\n", call_log.calls,
		   (unsigned long long)call_log.bytes);
	uint64_t total = tsc_read() - call_log.tsc_start, console = con_clock_ticks();
	con_printf(" for the kernel and initrd, as runs of LBA+blocks x calls:");
	for (uint32_t i = 0; i < call_log.runs; i++)
		con_printf("%s %llu+%ux%u", i % 6 ? "" : "\n ", (unsigned long long)runs[i].lba,
			   runs[i].count, runs[i].calls);
	con_printf("\n");
	con_printf("disk: time stamp counter, from Loading to the list's first line: %llu, in the "
		   "ReadBlocks calls %llu, copying out of the bounce buffer %llu, writing to the "
		   "console %llu\n", (unsigned long long)total, (unsigned long long)call_log.tsc_calls,
		   (unsigned long long)call_log.tsc_copies, (unsigned long long)console);
}

static bool aligned(const void *p, uint32_t align)
{
	return ((uintptr_t)p & (align - 1)) == 0;
}

/* One ReadBlocks call, timed and recorded for make bench while the log is on. */
static EFI_STATUS read_call(struct efi_blockdev *d, uint64_t lba, uint32_t count, void *buf)
{
	uint32_t bs = d->dev.sector_size;
	uint64_t t = tsc_read();
	EFI_STATUS s = d->bio->ReadBlocks(d->bio, d->media_id, lba, (UINTN)count * bs, buf);

	if (call_log.on) {
		call_log.tsc_calls += tsc_read() - t;
		log_call(lba, count, bs);
	}
	return s;
}

/* One attempt (common/blockdev.c retries a failure, without a Reset: EDK2's NVMe Reset
 * re-initialises the whole controller under every other user of it). An aligned buffer takes
 * the whole request (at most max_io sectors) in one call; any other goes through the bounce
 * buffer a bounce_sectors piece at a time. */
static int bio_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	struct efi_blockdev *d = (struct efi_blockdev *)dev;
	EFI_STATUS s;

	if (aligned(buf, d->io_align)) {
		s = read_call(d, lba, count, buf);
		if (EFI_ERROR(s)) {
			d->last_status = s;
			return AS_EIO;
		}
		return 0;
	}
	for (uint32_t done = 0; done < count;) {
		uint32_t n = count - done < d->bounce_sectors ? count - done : d->bounce_sectors;
		s = read_call(d, lba + done, n, d->bounce);
		if (EFI_ERROR(s)) {
			d->last_status = s;
			return AS_EIO;
		}
		uint64_t t = tsc_read();
		memcpy((uint8_t *)buf + (size_t)done * dev->sector_size, d->bounce,
		       (size_t)n * dev->sector_size);
		if (call_log.on)
			call_log.tsc_copies += tsc_read() - t;
		done += n;
	}
	return 0;
}

/* WriteBlocks calls and one FlushBlocks (the state block, common/bootstate.h, is the only thing
 * written: it must be on the disk before the kernel starts). */
static int bio_write(struct blockdev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	struct efi_blockdev *d = (struct efi_blockdev *)dev;
	uint32_t bs = dev->sector_size;
	bool direct = aligned(buf, d->io_align);
	uint32_t piece = direct ? count : d->bounce_sectors;
	EFI_STATUS s = EFI_SUCCESS;

	for (uint32_t done = 0; done < count && !EFI_ERROR(s); done += piece) {
		uint32_t n = count - done < piece ? count - done : piece;
		const uint8_t *src = (const uint8_t *)buf + (size_t)done * bs;
		if (!direct)
			memcpy(d->bounce, src, (size_t)n * bs);
		s = d->bio->WriteBlocks(d->bio, d->media_id, lba + done, (UINTN)n * bs,
					direct ? (void *)src : d->bounce);
	}
	if (!EFI_ERROR(s))
		s = d->bio->FlushBlocks(d->bio);
	if (EFI_ERROR(s)) {
		d->last_status = s;
		return AS_EIO;
	}
	return 0;
}

/* The block layer's word on a retried read (done "read", verb "read") or write. */
static void io_note(struct blockdev *dev, uint64_t lba, uint32_t count, unsigned tries, bool ok,
		    const char *done, const char *verb)
{
	struct efi_blockdev *d = (struct efi_blockdev *)dev;
	char sb[24];

	if (ok)
		con_printf("disk: LBA %llu+%u %s on try %u, after %s\n", (unsigned long long)lba,
			   count, done, tries, efi_status_name(d->last_status, sb));
	else
		con_printf("disk: cannot %s LBA %llu (%u-byte sectors): %s after %u tries\n", verb,
			   (unsigned long long)lba, dev->sector_size,
			   efi_status_name(d->last_status, sb), tries);
}

static void bio_note(struct blockdev *dev, uint64_t lba, uint32_t count, unsigned tries, bool ok)
{
	io_note(dev, lba, count, tries, ok, "read", "read");
}

static void bio_write_note(struct blockdev *dev, uint64_t lba, uint32_t count, unsigned tries,
			   bool ok)
{
	io_note(dev, lba, count, tries, ok, "written", "write");
}

/* Page-aligned memory aligned to `align` too (a power of two): over-allocate when it is more.
 * *base and *pages are what efi_free_pages needs. */
static void *alloc_aligned(size_t bytes, uint32_t align, void **base, UINTN *pages)
{
	size_t extra = align > PAGE_BYTES ? align : 0;
	uint8_t *p = efi_alloc_pages(bytes + extra, pages);
	*base = p;
	if (!p || !extra)
		return p;
	return (void *)ALIGN_UP((uintptr_t)p, align);
}

int efi_blockdev_open(EFI_HANDLE handle, struct efi_blockdev *out, const char **why)
{
	EFI_BLOCK_IO *bio = NULL;
	const char *dummy;

	if (!why)
		why = &dummy;
	memset(out, 0, sizeof *out);
	if (EFI_ERROR(g_bs->HandleProtocol(handle, &block_io_guid, (void **)&bio)) || !bio ||
	    !bio->Media) {
		*why = "the handle has no BlockIo protocol";
		return AS_ENOENT;
	}
	EFI_BLOCK_IO_MEDIA *m = bio->Media;
	if (!m->MediaPresent) {
		*why = "no media present";
		return AS_ENOENT;
	}
	if (m->BlockSize > BDEV_MAX_SECTOR_SIZE) {
		*why = "its block size is larger than the block layer handles";
		return AS_EUNSUPP;
	}

	uint32_t bs = m->BlockSize;
	uint32_t phys = bs;
	uint32_t aoff = 0;
	if (bio->Revision >= EFI_BLOCK_IO_PROTOCOL_REVISION2 && m->LogicalBlocksPerPhysicalBlock > 1 &&
	    is_pow2(m->LogicalBlocksPerPhysicalBlock) && m->LogicalBlocksPerPhysicalBlock <= 64) {
		phys = bs * m->LogicalBlocksPerPhysicalBlock;
		/* LowestAlignedLba is the first LBA on a physical boundary: that many blocks into
		 * the physical sector is the Linux-style alignment offset. */
		aoff = (uint32_t)(m->LowestAlignedLba % m->LogicalBlocksPerPhysicalBlock) * bs;
	}

	out->handle = handle;
	out->bio = bio;
	out->media_id = m->MediaId;
	/* Reads go straight into the caller's buffer whenever it meets the driver's own IoAlign
	 * (UEFI: 0 and 1 mean any address); only others bounce. A value the spec does not allow
	 * (not a power of two) is taken as a page. */
	out->io_align = m->IoAlign <= 1 ? 1 : is_pow2(m->IoAlign) ? m->IoAlign : PAGE_BYTES;
	out->dev.sector_size = bs;
	out->dev.phys_size = phys;
	out->dev.align_offset = aoff;
	out->dev.sectors = m->LastBlock + 1;
	out->dev.max_io = DIRECT_MAX_BYTES / bs;
	out->bounce_sectors = BOUNCE_BYTES / bs;
	out->dev.read = bio_read;
	out->dev.read_note = bio_note;
	if (!m->ReadOnly) {
		out->dev.write = bio_write;
		out->dev.write_note = bio_write_note;
	}
	out->dev.priv = out;
	if (!bdev_geometry_valid(&out->dev)) {
		*why = "its block size is not a power of two the block layer handles";
		return AS_EUNSUPP;
	}
	out->bounce = alloc_aligned(BOUNCE_BYTES, out->io_align, &out->bounce_base,
				    &out->bounce_pages);
	out->dev.scratch = alloc_aligned(bs, out->io_align, &out->scratch_base, &out->scratch_pages);
	if (!out->bounce || !out->dev.scratch) {
		efi_blockdev_close(out);
		*why = "out of memory for its buffers";
		return AS_ENOMEM;
	}
	return 0;
}

void efi_blockdev_close(struct efi_blockdev *d)
{
	efi_free_pages(d->bounce_base, d->bounce_pages);
	efi_free_pages(d->scratch_base, d->scratch_pages);
	d->bounce = d->bounce_base = NULL;
	d->dev.scratch = d->scratch_base = NULL;
}
