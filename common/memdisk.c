#include "common/memdisk.h"

#include "common/errors.h"
#include "common/mem.h"

static bool hits_fault(const struct memdisk *md, uint64_t lba, uint32_t count)
{
	return md->fail_lba >= lba && md->fail_lba - lba < count;
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
		dev->err_lba = md->fail_lba;
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
		dev->err_lba = md->fail_lba;
		return AS_EIO;
	}
	memcpy(md->data + lba * dev->sector_size, buf, (size_t)count * dev->sector_size);
	md->sectors_written += count;
	return 0;
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
		.priv = md,
		.scratch = scratch,
	};
	if (!bdev_geometry_valid(dev) || md->size % lss)
		return AS_EINVAL;
	return 0;
}
