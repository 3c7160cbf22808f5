/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/label.h"

#include "common/gpt.h"

struct label label_decide(const struct mbr *lba0, bool gpt_header)
{
	struct label l = { .kind = LABEL_NONE };

	if (!lba0->boot_signature) {
		if (gpt_header) {
			l.kind = LABEL_GPT;
			l.pmbr_missing = true;
		}
		return l;
	}
	if (!mbr_is_protective(lba0)) {
		l.kind = LABEL_MBR;
		l.stale_gpt = gpt_header;
		return l;
	}
	l.kind = LABEL_GPT;
	for (unsigned i = 0; i < 4; i++) {
		const struct mbr_entry *e = &lba0->part[i];
		if (e->type != MBR_TYPE_EMPTY && e->type != MBR_TYPE_GPT_PROTECTIVE)
			l.hybrid = true;
	}
	return l;
}

/* A header that validates where it stands (signature, size, CRC, MyLBA); the entries are
 * gpt_read's business. */
static bool header_at(struct blockdev *dev, uint64_t lba)
{
	if (lba >= dev->sectors || bdev_read(dev, lba, 1, dev->scratch))
		return false;
	return gpt_header_valid_raw(dev->scratch, dev->sector_size, lba);
}

int label_read(struct blockdev *dev, struct mbr *lba0, struct label *out)
{
	uint8_t rec[MBR_RECORD_SIZE];
	int rc = bdev_read_bytes(dev, 0, rec, sizeof rec);

	if (rc)
		return rc;
	mbr_decode(rec, lba0);
	bool gpt = !lba0->boot_signature &&
		   (header_at(dev, 1) || (dev->sectors > 2 && header_at(dev, dev->sectors - 1)));
	*out = label_decide(lba0, gpt);
	return 0;
}

const char *label_kind_name(enum label_kind kind)
{
	return kind == LABEL_GPT ? "GPT" : kind == LABEL_MBR ? "MBR" : "no partition table";
}
