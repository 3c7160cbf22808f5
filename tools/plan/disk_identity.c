/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/plan/disk_identity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32.h"
#include "common/errors.h"
#include "common/gpt.h"
#include "common/guid.h"
#include "common/le.h"
#include "common/mbr.h"
#include "tools/base/util.h"

void disk_identity_read(struct hostdev *h, struct disk_identity *id)
{
	uint32_t lss = h->topo.lss;
	uint64_t n = h->dev.sectors;
	const uint64_t at[2] = { 1, n ? n - 1 : 0 };
	uint8_t *buf = xmalloc(lss);

	memset(id, 0, sizeof *id);
	for (unsigned k = 0; k < 2 && n > 2; k++) {
		if (bdev_read(&h->dev, at[k], 1, buf) || !gpt_header_valid_raw(buf, lss, at[k]))
			continue;
		struct gpt_header g;
		gpt_header_decode(buf, &g);
		id->kind = DISK_ID_GPT;
		memcpy(id->id, g.disk_guid.b, 16);
		id->lba = at[k];
		free(buf);
		return;
	}
	if (n && !bdev_read(&h->dev, 0, 1, buf) && buf[MBR_SIGNATURE_OFF] == 0x55 &&
	    buf[MBR_SIGNATURE_OFF + 1] == 0xAA) {
		id->kind = DISK_ID_MBR;
		memcpy(id->id, buf + MBR_DISK_SIG_OFF, 4);
	}
	free(buf);
}

const char *disk_identity_text(const struct disk_identity *id, char *buf, size_t cap)
{
	if (id->kind == DISK_ID_GPT) {
		struct guid g;
		char s[GUID_STR_LEN + 1];
		memcpy(g.b, id->id, sizeof g.b);
		guid_format(&g, s);
		snprintf(buf, cap, "disk GUID %s", s);
	} else if (id->kind == DISK_ID_MBR) {
		snprintf(buf, cap, "MBR disk signature 0x%08X", (unsigned)le32_load(id->id));
	} else {
		snprintf(buf, cap, "no GPT and no MBR");
	}
	return buf;
}

/* Whether sector lba lies in one of the spans. */
static bool in_spans(const struct sector_span *s, unsigned n, uint64_t lba)
{
	for (unsigned i = 0; i < n; i++)
		if (lba >= s[i].first && lba - s[i].first < s[i].count)
			return true;
	return false;
}

int span_neighbours_crc(struct hostdev *h, const struct sector_span *s, unsigned n, unsigned i,
			uint32_t *crc, bool *has)
{
	uint32_t lss = h->topo.lss;
	uint8_t *buf = xmalloc(lss);
	const uint64_t side[2] = { s[i].first - 1, s[i].first + s[i].count };
	bool ok[2] = { s[i].first > 0, side[1] < h->dev.sectors };
	int rc = 0;

	*crc = 0;
	*has = false;
	for (unsigned k = 0; k < 2 && !rc; k++) {
		if (!ok[k] || in_spans(s, n, side[k]))
			continue;
		if ((rc = bdev_read(&h->dev, side[k], 1, buf)))
			break;
		*crc = crc32_update(*crc, buf, lss);
		*has = true;
	}
	free(buf);
	return rc;
}
