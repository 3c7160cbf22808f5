/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/bootinfo.h"

#include "common/crc32.h"
#include "common/le.h"
#include "common/mem.h"
#include "common/str.h"

uint32_t stage2_image_crc(const uint8_t *image, uint32_t len)
{
	static const uint8_t zero[4];
	uint32_t crc;

	if (len < STAGE2_HDR_SIZE)
		return 0;
	crc = crc32_update(0, image, STAGE2_CRC_OFF);
	crc = crc32_update(crc, zero, sizeof zero);
	return crc32_update(crc, image + STAGE2_CRC_OFF + 4, len - STAGE2_CRC_OFF - 4);
}

bool stage2_image_valid(const uint8_t *image, uint32_t len)
{
	if (len < STAGE2_HDR_SIZE)
		return false;
	if (memcmp(image + STAGE2_MAGIC_OFF, STAGE2_MAGIC, 8))
		return false;
	if (le32_load(image + STAGE2_HDR_VERSION_OFF) != STAGE2_HDR_VERSION)
		return false;
	if (le32_load(image + STAGE2_LENGTH_OFF) != len)
		return false;
	return le32_load(image + STAGE2_CRC_OFF) == stage2_image_crc(image, len);
}

void stage2_identity_get(const uint8_t *image, struct stage2_identity *id)
{
	id->kind = (enum stage2_boot_kind)le32_load(image + STAGE2_KIND_OFF);
	memcpy(id->part_guid.b, image + STAGE2_PART_GUID_OFF, 16);
	id->mbr_disk_sig = le32_load(image + STAGE2_MBR_SIG_OFF);
	id->mbr_part = le32_load(image + STAGE2_MBR_PART_OFF);
	id->state_offset = le32_load(image + STAGE2_STATE_OFF);
	str_copy_n(id->config_path, sizeof id->config_path,
		   (const char *)image + STAGE2_CONFIG_PATH_OFF, STAGE2_CONFIG_PATH_MAX);
}

void stage2_identity_set(uint8_t *image, uint32_t len, const struct stage2_identity *id)
{
	le32_store(image + STAGE2_KIND_OFF, (uint32_t)id->kind);
	memcpy(image + STAGE2_PART_GUID_OFF, id->part_guid.b, 16);
	le32_store(image + STAGE2_MBR_SIG_OFF, id->mbr_disk_sig);
	le32_store(image + STAGE2_MBR_PART_OFF, id->mbr_part);
	le32_store(image + STAGE2_STATE_OFF, id->state_offset);
	memset(image + STAGE2_CONFIG_PATH_OFF, 0, STAGE2_CONFIG_PATH_MAX);
	str_copy((char *)image + STAGE2_CONFIG_PATH_OFF, STAGE2_CONFIG_PATH_MAX, id->config_path);
	le32_store(image + STAGE2_CRC_OFF, stage2_image_crc(image, len));
}
