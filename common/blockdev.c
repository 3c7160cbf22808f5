/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/blockdev.h"

#include "common/bits.h"
#include "common/errors.h"
#include "common/mem.h"

bool bdev_geometry_valid(const struct blockdev *dev)
{
	if (!dev || !dev->read)
		return false;
	if (!is_pow2(dev->sector_size) || dev->sector_size < 512 || dev->sector_size > 65536)
		return false;
	if (!is_pow2(dev->phys_size) || dev->phys_size < dev->sector_size)
		return false;
	return true;
}

/* Sectors one driver call may move. */
static uint64_t chunk_limit(const struct blockdev *dev)
{
	return dev->max_io ? dev->max_io : 0xFFFFFFFFu;
}

static bool range_ok(const struct blockdev *dev, uint64_t lba, uint64_t count)
{
	return lba <= dev->sectors && count <= dev->sectors - lba;
}

/* The driver call of a transfer: a read, or a write (the driver only reads the buffer then). */
typedef int (*xfer_fn)(struct blockdev *, uint64_t, uint32_t, void *);
typedef void (*note_fn)(struct blockdev *, uint64_t, uint32_t, unsigned, bool);

static int call_write(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	return dev->write(dev, lba, count, buf);
}

/* One piece (count <= max_io): tried again, then halved (bdev_read's comment); reads and writes
 * alike, each with its own note. */
static int xfer_retrying(struct blockdev *dev, uint64_t lba, uint32_t count, uint8_t *buf,
			 xfer_fn io, note_fn note)
{
	int rc = AS_EIO;

	for (unsigned t = 1; t <= BDEV_READ_TRIES; t++) {
		if (t > 1 && dev->reset)
			dev->reset(dev);
		dev->err_lba = lba;
		rc = io(dev, lba, count, buf);
		if (rc > 0)
			rc = AS_EIO;
		if (rc != AS_EIO) {
			if (!rc && t > 1 && note)
				note(dev, lba, count, t, true);
			return rc;
		}
	}
	if (count > 1) {
		uint32_t half = count / 2;
		rc = xfer_retrying(dev, lba, half, buf, io, note);
		return rc ? rc : xfer_retrying(dev, lba + half, count - half,
					       buf + (size_t)half * dev->sector_size, io, note);
	}
	dev->err_lba = lba;
	if (note)
		note(dev, lba, 1, BDEV_READ_TRIES, false);
	return rc;
}

static int xfer(struct blockdev *dev, uint64_t lba, uint64_t count, uint8_t *p, xfer_fn io,
		note_fn note)
{
	uint64_t limit = chunk_limit(dev);

	if (!range_ok(dev, lba, count))
		return AS_ERANGE;
	while (count) {
		uint32_t n = (uint32_t)(count < limit ? count : limit);
		int rc = xfer_retrying(dev, lba, n, p, io, note);
		if (rc)
			return rc;
		lba += n;
		count -= n;
		p += (size_t)n * dev->sector_size;
	}
	return 0;
}

int bdev_read(struct blockdev *dev, uint64_t lba, uint64_t count, void *buf)
{
	return xfer(dev, lba, count, buf, dev->read, dev->read_note);
}

/* The driver only reads the buffer of a write: the cast drops a const it keeps. */
int bdev_write(struct blockdev *dev, uint64_t lba, uint64_t count, const void *buf)
{
	if (!dev->write)
		return AS_EUNSUPP;
	return xfer(dev, lba, count, (uint8_t *)(uintptr_t)buf, call_write, dev->write_note);
}

static bool byte_range_ok(const struct blockdev *dev, uint64_t offset, size_t len)
{
	uint64_t size = bdev_size_bytes(dev);
	return offset <= size && (uint64_t)len <= size - offset;
}

int bdev_read_bytes(struct blockdev *dev, uint64_t offset, void *buf, size_t len)
{
	uint32_t ss = dev->sector_size;
	uint8_t *p = buf;
	int rc;

	if (!byte_range_ok(dev, offset, len))
		return AS_ERANGE;
	if (!len)
		return 0;

	uint64_t lba = offset / ss;
	uint32_t head = (uint32_t)(offset % ss);
	if (head) {
		size_t n = ss - head < len ? ss - head : len;
		if (!dev->scratch)
			return AS_EINVAL;
		if ((rc = bdev_read(dev, lba, 1, dev->scratch)))
			return rc;
		memcpy(p, (uint8_t *)dev->scratch + head, n);
		p += n;
		len -= n;
		lba++;
	}
	uint64_t whole = len / ss;
	if (whole) {
		if ((rc = bdev_read(dev, lba, whole, p)))
			return rc;
		p += whole * ss;
		len -= (size_t)(whole * ss);
		lba += whole;
	}
	if (len) {
		if (!dev->scratch)
			return AS_EINVAL;
		if ((rc = bdev_read(dev, lba, 1, dev->scratch)))
			return rc;
		memcpy(p, dev->scratch, len);
	}
	return 0;
}

int bdev_write_bytes(struct blockdev *dev, uint64_t offset, const void *buf, size_t len)
{
	uint32_t ss = dev->sector_size;
	const uint8_t *p = buf;
	int rc;

	if (!dev->write)
		return AS_EUNSUPP;
	if (!byte_range_ok(dev, offset, len))
		return AS_ERANGE;
	if (!len)
		return 0;

	uint64_t lba = offset / ss;
	uint32_t head = (uint32_t)(offset % ss);
	if (head || len < ss) {
		size_t n = ss - head < len ? ss - head : len;
		if (!dev->scratch)
			return AS_EINVAL;
		if ((rc = bdev_read(dev, lba, 1, dev->scratch)))
			return rc;
		memcpy((uint8_t *)dev->scratch + head, p, n);
		if ((rc = bdev_write(dev, lba, 1, dev->scratch)))
			return rc;
		p += n;
		len -= n;
		lba++;
	}
	uint64_t whole = len / ss;
	if (whole) {
		if ((rc = bdev_write(dev, lba, whole, p)))
			return rc;
		p += whole * ss;
		len -= (size_t)(whole * ss);
		lba += whole;
	}
	if (len) {
		if (!dev->scratch)
			return AS_EINVAL;
		if ((rc = bdev_read(dev, lba, 1, dev->scratch)))
			return rc;
		memcpy(dev->scratch, p, len);
		if ((rc = bdev_write(dev, lba, 1, dev->scratch)))
			return rc;
	}
	return 0;
}

static int slice_read(struct blockdev *part, uint64_t lba, uint32_t count, void *buf)
{
	struct blockdev *disk = part->parent;
	int rc = disk->read(disk, part->base_lba + lba, count, buf);
	if (rc)
		part->err_lba = (disk->err_lba >= part->base_lba ? disk->err_lba - part->base_lba : lba);
	return rc;
}

/* A window's retries reset and report on the whole disk, in the disk's numbering. */
static void slice_reset(struct blockdev *part)
{
	part->parent->reset(part->parent);
}

static void slice_note(struct blockdev *part, uint64_t lba, uint32_t count, unsigned tries, bool ok)
{
	part->parent->read_note(part->parent, part->base_lba + lba, count, tries, ok);
}

static int slice_write(struct blockdev *part, uint64_t lba, uint32_t count, const void *buf)
{
	struct blockdev *disk = part->parent;
	int rc = disk->write(disk, part->base_lba + lba, count, buf);
	if (rc)
		part->err_lba = (disk->err_lba >= part->base_lba ? disk->err_lba - part->base_lba : lba);
	return rc;
}

int bdev_slice(struct blockdev *disk, uint64_t first_lba, uint64_t sectors, struct blockdev *part)
{
	if (!range_ok(disk, first_lba, sectors))
		return AS_ERANGE;
	uint64_t start = first_lba * disk->sector_size;
	uint32_t ps = disk->phys_size;
	/* Offset of the first aligned byte, counted from the window's start. */
	uint32_t rel = (uint32_t)((disk->align_offset % ps + ps - start % ps) % ps);

	*part = (struct blockdev){
		.sector_size = disk->sector_size,
		.phys_size = disk->phys_size,
		.align_offset = rel,
		.sectors = sectors,
		.max_io = disk->max_io,
		.read = slice_read,
		.write = disk->write ? slice_write : 0,
		.reset = disk->reset ? slice_reset : 0,
		.read_note = disk->read_note ? slice_note : 0,
		.priv = disk->priv,
		.scratch = disk->scratch,
		.parent = disk,
		.base_lba = first_lba,
	};
	return 0;
}

uint64_t bdev_disk_err_lba(const struct blockdev *dev)
{
	uint64_t lba = dev->err_lba;
	while (dev->parent) {
		lba += dev->base_lba;
		dev = dev->parent;
	}
	return lba;
}
