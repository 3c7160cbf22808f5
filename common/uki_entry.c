/* SPDX-License-Identifier: BSD-2-Clause */
/* A unified kernel image as a menu entry (common/uki.h): the loaders read it through the FAT
 * reader (common/uki_fat.c), the installer through its session on the boot partition, and both
 * make the same entry here. */
#include "common/bls.h"
#include "common/errors.h"
#include "common/mem.h"
#include "common/str.h"
#include "common/uki.h"

/* One os-release value into dst, or nothing (with a warning) when it does not fit or has a
 * control character. True when it was set. */
static bool osrel_field(const char *path, const char *text, size_t len, const char *key,
			char *dst, size_t cap, struct diag *d)
{
	int n = uki_osrel_value(text, len, key, dst, cap);
	if (n == -2) {
		dst[0] = 0;
		diag_warn(d, "uki.osrel", "%s: .osrel's %s is longer than %u bytes or has a control "
			  "character; not used", path, key, (unsigned)cap - 1);
	}
	return n > 0;
}

static int read_section(const char *path, const struct uki *u, enum uki_section s,
			uki_read_fn read, void *ctx, char *buf, struct diag *d)
{
	int rc = read(ctx, u->sec[s].off, buf, u->sec[s].len);
	if (rc)
		diag_error(d, "uki.read", "cannot read %s: %s", path, as_strerror(rc));
	return rc;
}

int uki_entry(const char *path, uint64_t size, uki_read_fn read, void *ctx, char *buf,
	      struct bls_entry *out, struct diag *d)
{
	struct uki u;
	size_t head = size < UKI_HEAD_BYTES ? (size_t)size : UKI_HEAD_BYTES;
	int rc;

	if ((rc = read(ctx, 0, buf, head))) {
		diag_error(d, "uki.read", "cannot read %s: %s", path, as_strerror(rc));
		return rc;
	}
	if ((rc = uki_parse((const uint8_t *)buf, head, size, path, CFG_CMDLINE_MAX, &u, d)))
		return rc;
	char *osrel = buf, *cmd = buf + UKI_OSREL_MAX;
	size_t on = u.sec[UKI_OSREL].len, cn = u.sec[UKI_CMDLINE].len;
	if ((rc = read_section(path, &u, UKI_OSREL, read, ctx, osrel, d)) ||
	    (rc = read_section(path, &u, UKI_CMDLINE, read, ctx, cmd, d)))
		return rc;
	if (!uki_cmdline(cmd, &cn, path, d))
		return AS_ECORRUPT;
	out->kind = CFG_KIND_UKI;
	if (out->kernel != path)
		str_copy(out->kernel, sizeof out->kernel, path);
	str_copy_n(out->cmdline, sizeof out->cmdline, cmd, cn);
	if (!osrel_field(path, osrel, on, "PRETTY_NAME", out->title, sizeof out->title, d))
		osrel_field(path, osrel, on, "NAME", out->title, sizeof out->title, d);
	osrel_field(path, osrel, on, "VERSION_ID", out->version, sizeof out->version, d);
	if (!osrel_field(path, osrel, on, "IMAGE_ID", out->sort_key, sizeof out->sort_key, d))
		osrel_field(path, osrel, on, "ID", out->sort_key, sizeof out->sort_key, d);
	return 0;
}
