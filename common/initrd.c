/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/initrd.h"

#include "common/bits.h"
#include "common/errors.h"
#include "common/mem.h"
#include "common/pin.h"

int initrd_join_open(struct fat_fs *fs, const struct cfg_entry *e, struct initrd_join *j,
		     struct diag *d)
{
	uint64_t total = 0;
	int rc;

	for (unsigned i = 0; i < e->ninitrd; i++) {
		if ((rc = fat_open(fs, e->initrd[i], &j->f[i], d)) == 0 && j->f[i].is_dir)
			rc = AS_EISDIR;
		if (rc) {
			diag_error(d, "initrd.open", "entry %s: cannot open initrd %s (%s)", e->name,
				   e->initrd[i], as_strerror(rc));
			return rc;
		}
		total = ALIGN_UP(total, INITRD_JOIN_ALIGN);
		j->off[i] = total;
		total += j->f[i].size;
	}
	j->total = total;
	return 0;
}

int initrd_join_read(const struct initrd_join *j, const struct cfg_entry *e, uint8_t *dst,
		     initrd_read_fn read, void *ctx)
{
	int rc;

	for (unsigned i = 0; i < e->ninitrd; i++) {
		uint64_t end = i + 1 < e->ninitrd ? j->off[i + 1] : j->total;
		uint64_t size = j->f[i].size;
		if ((rc = read(ctx, e->initrd[i], &j->f[i], dst + j->off[i])))
			return rc;
		memset(dst + j->off[i] + size, 0, (size_t)(end - j->off[i] - size));
	}
	return 0;
}

int initrd_join_pins(const struct initrd_join *j, const struct cfg_entry *e, const uint8_t *dst,
		     struct diag *d)
{
	int rc;
	for (unsigned i = 0; i < e->ninitrd; i++)
		if ((rc = pin_check(e, PIN_INITRD + i, dst + j->off[i], (size_t)j->f[i].size, 0,
				    0, d)))
			return rc;
	return 0;
}
