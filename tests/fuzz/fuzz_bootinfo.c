/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: the input is a stage2 image as found on a disk (tools/disk/inspect.c reads it from the
 * place stage1's patch block names; stage2 decodes its own identity). stage2_image_valid must
 * give a verdict without reading past len, stage2_identity_get must give a terminated config
 * path, and an image patched with stage2_identity_set must be valid exactly when its magic,
 * version and length fields are, and must decode to what was set. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bootinfo.h"
#include "common/le.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stage2_identity id, back;

	if (size > UINT32_MAX)
		return 0;
	/* an exact-size copy, so ASan sees any read past len */
	uint8_t *img = malloc(size ? size : 1);
	if (!img)
		__builtin_trap();
	memcpy(img, data, size);
	bool valid = stage2_image_valid(img, (uint32_t)size);
	if (size < STAGE2_HDR_SIZE) {
		if (valid)
			__builtin_trap();
		free(img);
		return 0;
	}
	stage2_identity_get(img, &id);
	if (strnlen(id.config_path, sizeof id.config_path) >= sizeof id.config_path)
		__builtin_trap();

	/* Patch it (as the installer does) and check the verdict follows the fixed fields. */
	stage2_identity_set(img, (uint32_t)size, &id);
	bool fields_ok = !memcmp(img + STAGE2_MAGIC_OFF, STAGE2_MAGIC, 8) &&
			 le32_load(img + STAGE2_HDR_VERSION_OFF) == STAGE2_HDR_VERSION &&
			 le32_load(img + STAGE2_LENGTH_OFF) == size;
	if (stage2_image_valid(img, (uint32_t)size) != fields_ok)
		__builtin_trap();
	if (valid && !fields_ok)
		__builtin_trap();
	stage2_identity_get(img, &back);
	if (back.kind != id.kind || memcmp(&back.part_guid, &id.part_guid, sizeof id.part_guid) ||
	    back.mbr_disk_sig != id.mbr_disk_sig || back.mbr_part != id.mbr_part ||
	    strcmp(back.config_path, id.config_path))
		__builtin_trap();
	free(img);
	return 0;
}
