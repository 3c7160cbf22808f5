/* SPDX-License-Identifier: BSD-2-Clause */
/* Host tool: seals a raw stage2 image — writes its length and CRC32 into the header
 * (common/bootinfo.h), leaving the boot partition identity unset for the installer.
 *   seal IN OUT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bootinfo.h"
#include "common/le.h"

int main(int argc, char **argv)
{
	static uint8_t img[STAGE2_MAX_SIZE + 1];
	FILE *f;
	size_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
		return 2;
	}
	if (!(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "seal: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n = fread(img, 1, sizeof img, f);
	fclose(f);
	if (n < STAGE2_HDR_SIZE || n > STAGE2_MAX_SIZE) {
		fprintf(stderr, "seal: %s is %zu bytes; a stage2 is %u..%u bytes\n", argv[1], n,
			STAGE2_HDR_SIZE, STAGE2_MAX_SIZE);
		return 1;
	}
	if (memcmp(img + STAGE2_MAGIC_OFF, STAGE2_MAGIC, 8)) {
		fprintf(stderr, "seal: %s has no \"%s\" at 0x%x\n", argv[1], STAGE2_MAGIC,
			STAGE2_MAGIC_OFF);
		return 1;
	}
	le32_store(img + STAGE2_LENGTH_OFF, (uint32_t)n);
	le32_store(img + STAGE2_CRC_OFF, stage2_image_crc(img, (uint32_t)n));
	if (!stage2_image_valid(img, (uint32_t)n)) {
		fprintf(stderr, "seal: the sealed image does not validate\n");
		return 1;
	}
	if (!(f = fopen(argv[2], "wb")) || fwrite(img, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "seal: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	return 0;
}
