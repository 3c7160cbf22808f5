/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/memdisk.h"

#include "common/errors.h"
#include "common/mem.h"

static bool hits_fault(const struct memdisk *md, uint64_t lba, uint32_t count)
{
	uint64_t span = md->fail_span ? md->fail_span : 1;
	return md->fail_lba < lba + count && lba < md->fail_lba + span;
}

static void note_call(struct memdisk *md, uint32_t count)
{
	md->calls++;
	if (count > md->max_count_seen)
		md->max_count_seen = count;
}

static int mem_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	struct memdisk *md = dev->priv;

	note_call(md, count);
	if (md->fail_reads && hits_fault(md, lba, count)) {
		md->read_failures++;
		if (md->fail_times && md->read_failures >= md->fail_times)
			md->fail_reads = false;
		dev->err_lba = md->fail_lba > lba ? md->fail_lba : lba;
		return AS_EIO;
	}
	memcpy(buf, md->data + lba * dev->sector_size, (size_t)count * dev->sector_size);
	md->sectors_read += count;
	return 0;
}

static int mem_write(struct blockdev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	struct memdisk *md = dev->priv;

	note_call(md, count);
	if (md->readonly)
		return AS_EUNSUPP;
	if (md->fail_writes && hits_fault(md, lba, count)) {
		md->write_failures++;
		if (md->fail_times && md->write_failures >= md->fail_times)
			md->fail_writes = false;
		dev->err_lba = md->fail_lba > lba ? md->fail_lba : lba;
		return AS_EIO;
	}
	memcpy(md->data + lba * dev->sector_size, buf, (size_t)count * dev->sector_size);
	md->sectors_written += count;
	return 0;
}

static void mem_reset(struct blockdev *dev)
{
	struct memdisk *md = dev->priv;

	md->resets++;
	if (md->reset_heals)
		md->fail_reads = md->fail_writes = false;
}

int memdisk_init(struct blockdev *dev, struct memdisk *md, uint32_t lss, uint32_t pss,
		 uint32_t align_offset, uint32_t max_io, void *scratch)
{
	*dev = (struct blockdev){
		.sector_size = lss,
		.phys_size = pss,
		.align_offset = align_offset,
		.sectors = lss ? md->size / lss : 0,
		.max_io = max_io,
		.read = mem_read,
		.write = mem_write,
		.reset = mem_reset,
		.priv = md,
		.scratch = scratch,
	};
	if (!bdev_geometry_valid(dev) || md->size % lss)
		return AS_EINVAL;
	return 0;
}
