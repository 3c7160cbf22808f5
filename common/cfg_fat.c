/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/cfg_fat.h"

#include "common/errors.h"

/* The configuration file into buf; *size 0 when there is none. */
static int read_cfg_file(struct fat_fs *fs, const char *path, char *buf, uint32_t *size,
			 struct diag *d)
{
	struct fat_file f;
	int rc = fat_open(fs, path, &f, NULL);

	*size = 0;
	if (rc == AS_ENOENT)
		return 0;
	if (rc) {
		fat_open(fs, path, &f, d);   /* again, for the FAT layer's own reason */
		diag_error(d, "cfg.open", "cannot open %s on the boot partition: %s", path,
			   as_strerror(rc));
		return rc;
	}
	if (f.is_dir) {
		diag_error(d, "cfg.is_dir", "%s on the boot partition is a directory, not a "
			   "configuration file", path);
		return AS_EISDIR;
	}
	if (f.size > CFG_FILE_MAX_BYTES) {
		diag_error(d, "cfg.too_big", "%s is %u bytes; the loaders read configuration files "
			   "of up to %u bytes", path, f.size, CFG_FILE_MAX_BYTES);
		return AS_ETOOBIG;
	}
	if ((rc = fat_read(fs, &f, 0, buf, f.size, d))) {
		diag_error(d, "cfg.read", "cannot read %s: %s", path, as_strerror(rc));
		return rc;
	}
	*size = f.size;
	return 0;
}

int cfg_load_fat(struct fat_fs *fs, const char *path, struct cfg *cfg, char *buf,
		 struct bls_scratch *bls, struct measure *m, struct diag *d)
{
	uint32_t size;
	int rc = read_cfg_file(fs, path, buf, &size, d);

	/* an absent file is measured as nothing: the PCR then differs from one with the file */
	if (!rc && size)
		measure_file(m, MEASURE_PCR_CONFIG, "config", path, buf, size, 0, 0);
	if (!rc)
		rc = cfg_parse_text(buf, size, cfg, d);
	if (rc)
		return rc;
	bls_load_fat(fs, cfg, buf, bls, m, d);
	return cfg_menu_check(cfg, d);
}
