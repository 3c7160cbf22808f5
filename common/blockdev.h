/* SPDX-License-Identifier: BSD-2-Clause */
/* The block layer: the only place that knows sectors have a size. Everything above it (MBR, GPT,
 * FAT, file loading) asks for byte ranges or for this device's own sectors.
 *
 * Drivers: int13 extensions (stage2/), EFI_BLOCK_IO (efi/), files and block devices (tools/),
 * memory (common/memdisk.h, for tests). A driver fills the geometry and gives one-shot read and
 * write callbacks (and, optionally, a reset and notes); the wrappers below range-check, split by
 * max_io, bounce partial sectors, and retry failed reads and writes: the retry policy lives here
 * once, so every loader reads and writes a flaky disk the same way. */
#ifndef ANYSECTOR_BLOCKDEV_H
#define ANYSECTOR_BLOCKDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct blockdev {
	uint32_t sector_size;   /* logical, bytes: power of two, 512..4096 (more is allowed) */
	uint32_t phys_size;     /* physical sector size in bytes (>= sector_size)            */
	uint32_t align_offset;  /* bytes from LBA 0 to the first physically aligned sector  */
	uint64_t sectors;       /* size in logical sectors                                   */
	uint32_t max_io;        /* most sectors one read/write call may move (0: no limit)   */
	/* Drivers are only ever called with 1 <= count <= max_io and lba + count <= sectors.
	 * They return 0 or a negative AS_* code; on failure they may set err_lba more exactly.
	 * read and write make one attempt: AS_EIO from them is retried by bdev_read and
	 * bdev_write (below). */
	int (*read)(struct blockdev *, uint64_t lba, uint32_t count, void *buf);
	int (*write)(struct blockdev *, uint64_t lba, uint32_t count, const void *buf);
	/* Optional: called before each retry of a failed read, to put the device back in a known
	 * state (int 13h AH=00h). NULL where a reset would hurt others (EDK2's NVMe Reset
	 * re-initialises the whole controller). */
	void (*reset)(struct blockdev *);
	/* Optional: told the outcome of a read that needed retries, so the driver can say so with
	 * its own status text: sectors lba..lba+count-1 were read on try `tries` (ok), or sector lba
	 * stayed unreadable after `tries` tries (!ok, count 1). LBAs in this device's numbering. */
	void (*read_note)(struct blockdev *, uint64_t lba, uint32_t count, unsigned tries, bool ok);
	/* Optional: the same for a write (stage2's state block, common/bootstate.h, written on the
	 * whole disk: a window of it does not pass this on). */
	void (*write_note)(struct blockdev *, uint64_t lba, uint32_t count, unsigned tries, bool ok);
	void *priv;

	/* Beyond the founding design's list (docs/DESIGN.md "The block layer"): what byte I/O and
	 * slices need. */
	void *scratch;            /* sector_size bytes for partial head/tail sectors (byte I/O) */
	uint64_t err_lba;         /* after a failure: the LBA (this device's numbering) that failed */
	struct blockdev *parent;  /* set by bdev_slice: the device this one is a window of */
	uint64_t base_lba;        /* set by bdev_slice: first sector of the window on the parent */
};

/* Largest sector size any code here must handle; buffers sized for "one sector" use this. */
#define BDEV_MAX_SECTOR_SIZE 4096u

/* True when the geometry is usable: sector_size a power of two in [512, 65536] (512 is the
 * smallest size any disk format allows), phys_size a power-of-two multiple of it, callbacks set. */
bool bdev_geometry_valid(const struct blockdev *dev);

/* Tries per transfer size before a failed read or write is split. */
#define BDEV_READ_TRIES 3

/* Whole sectors. Refuses (AS_ERANGE) a range past the end; splits into max_io pieces; on a driver
 * failure returns its code with dev->err_lba naming the first failing sector.
 * Reads: a piece that fails with AS_EIO is tried again (BDEV_READ_TRIES in all, dev->reset before
 * each retry), then read as two halves the same way, down to single sectors, so what still fails
 * is the one sector that cannot be read; the halving stops at the first such sector, so a dead
 * disk costs a few dozen calls, not one per sector. Writes are retried by the same rule, with
 * write_note in read_note's place: a sector that cannot be written is named the same way. */
int bdev_read(struct blockdev *dev, uint64_t lba, uint64_t count, void *buf);
int bdev_write(struct blockdev *dev, uint64_t lba, uint64_t count, const void *buf);

/* Any byte range: whole sectors go straight into buf (in max_io pieces), a partial head and tail
 * sector go through dev->scratch. A range past the end is refused, never truncated. */
int bdev_read_bytes(struct blockdev *dev, uint64_t offset, void *buf, size_t len);
/* The write counterpart (host tools): partial sectors are read, patched and written back. */
int bdev_write_bytes(struct blockdev *dev, uint64_t offset, const void *buf, size_t len);

/* Makes part a window [first_lba, first_lba + sectors) of disk with the same sector size; the
 * window's alignment offset is derived so alignment math on it stays true. AS_ERANGE if it does
 * not fit. part shares disk's scratch buffer. */
int bdev_slice(struct blockdev *disk, uint64_t first_lba, uint64_t sectors, struct blockdev *part);

/* The first failing LBA counted on the outermost parent (the whole disk). */
uint64_t bdev_disk_err_lba(const struct blockdev *dev);

static inline uint64_t bdev_size_bytes(const struct blockdev *dev)
{
	return dev->sectors * dev->sector_size;
}

#endif
