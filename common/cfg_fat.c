/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/cfg_fat.h"

#include "common/errors.h"
#include "common/mem.h"
#include "common/pe.h"
#include "common/sha256.h"

/* The configuration file into buf; *size 0 when there is none. Inlined into both callers: in
 * the legacy-gap stage2, which calls only cfg_load_fat, it stays as it was before the locked
 * reader came. */
static inline __attribute__((always_inline)) int
read_cfg_file(struct fat_fs *fs, const char *path, char *buf, uint32_t *size, struct diag *d)
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

int cfg_load_fat_locked(struct fat_fs *fs, const char *path, const struct cfg_lock *lock,
			struct cfg *cfg, char *buf, struct measure *m, struct diag *d)
{
	uint8_t got[SHA256_BYTES];
	uint32_t size;
	int rc = read_cfg_file(fs, path, buf, &size, d);

	if (rc)
		return rc;
	if (size)   /* measured as cfg_load_fat does, whether or not the lock takes it */
		measure_file(m, MEASURE_PCR_CONFIG, "config", path, buf, size, 0, 0);
	sha256(buf, size, got); /* the bytes that are parsed next, not a second read */
	if ((rc = cfg_lock_check(lock, got, d)) || (rc = cfg_parse_text(buf, size, cfg, d)))
		return rc;
	return cfg_menu_check(cfg, d);
}

bool cfg_lock_read_fat(struct fat_fs *fs, uint8_t *buf, struct cfg_lock *out)
{
	for (unsigned i = 0; i < CFG_LOCK_LOADERS; i++) {
		struct fat_file f;
		struct pe_image pe;
		struct pe_span sp;
		if (fat_open(fs, cfg_lock_loaders[i], &f, 0) || f.is_dir)
			continue;
		uint32_t head = f.size < CFG_LOCK_HEAD_BYTES ? f.size : CFG_LOCK_HEAD_BYTES;
		if (fat_read(fs, &f, 0, buf, head, 0) || pe_parse_head(buf, head, f.size, &pe) ||
		    pe_section_span(&pe, CFG_LOCK_SECTION, &sp) || sp.len < CFG_LOCK_BYTES ||
		    fat_read(fs, &f, sp.off, buf, CFG_LOCK_BYTES, 0))
			continue;   /* not a loader that knows locking (shim, another's) */
		if (cfg_lock_parse(buf, CFG_LOCK_BYTES, out)) {
			memset(out, 0, sizeof *out);
			out->locked = true;
		}
		return true;
	}
	memset(out, 0, sizeof *out);
	return false;
}
