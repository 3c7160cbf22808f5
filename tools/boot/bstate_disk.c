/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/boot/bstate_disk.h"

#include <stdlib.h>
#include <string.h>

#include "common/bootinfo.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/base/util.h"

/* The stage2 LBA 0 points at, whole; its header into id. */
static int read_stage2(struct blockdev *dev, struct bstate_disk *d, struct stage2_identity *id,
		       const char **why)
{
	uint32_t lss = dev->sector_size;
	uint8_t *lba0 = xmalloc(lss), *img = NULL;
	int rc = bdev_read(dev, 0, 1, lba0);

	if (rc)
		goto out;
	rc = AS_ENOENT;
	*why = "LBA 0 holds no stage1 of anysector";
	if (memcmp(lba0 + STAGE1_MAGIC_OFF, STAGE1_MAGIC, 4))
		goto out;
	uint64_t off = le64_load(lba0 + STAGE1_S2_OFFSET_OFF);
	uint32_t len = le32_load(lba0 + STAGE1_S2_LENGTH_OFF);
	*why = "the stage2 stage1 points at is not whole (see 'anysector check')";
	if (len < STAGE2_HDR_SIZE || len > STAGE2_MAX_SIZE || off % lss)
		goto out;
	img = xmalloc(len);
	if ((rc = bdev_read_bytes(dev, off, img, len)))
		goto out;
	rc = AS_ENOENT;
	if (!stage2_image_valid(img, len))
		goto out;
	stage2_identity_get(img, id);
	d->s2_offset = off;
	*why = "";
	rc = 0;
out:
	free(lba0);
	free(img);
	return rc;
}

int bstate_disk_read(struct blockdev *dev, struct bstate_disk *d, const char **why)
{
	struct stage2_identity id;
	uint32_t lss = dev->sector_size;
	int rc;

	memset(d, 0, sizeof *d);
	d->live = -1;
	if ((rc = read_stage2(dev, d, &id, why)) || !id.state_offset)
		return rc;
	d->offset = id.state_offset;
	d->lba = d->offset / lss;
	d->sectors = BSTATE_COPY_BYTES / lss;
	*why = "the state block stage2 records is not whole sectors inside the disk";
	if (d->offset % lss || BSTATE_COPY_BYTES % lss || d->lba > dev->sectors ||
	    dev->sectors - d->lba < 2ull * d->sectors)
		return AS_ERANGE;
	*why = "";
	if ((rc = bdev_read(dev, d->lba, 2ull * d->sectors, d->copy)))
		return rc;
	d->live = bstate_pick(d->copy[0], d->copy[1]);
	return 0;
}
