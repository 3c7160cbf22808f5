/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/ops/state_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "common/bootstate.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"

/* Whether rec (TRIES, or BOOTED) names one of names. */
static bool named(const uint8_t *rec, const char (*names)[CFG_NAME_MAX], unsigned n)
{
	char name[BSTATE_NAME_MAX + 1];

	if (!bstate_name(rec, name, sizeof name))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (!strcasecmp(names[i], name))
			return true;
	return false;
}

int txn_state_forget(struct txn *t, const char (*names)[CFG_NAME_MAX], unsigned n)
{
	struct bstate_disk *d = xcalloc(1, sizeof *d);
	const char *why;
	unsigned gone = 0;

	if (!n || bstate_disk_read(&t->h->dev, d, &why) || !d->offset || d->io.live < 0)
		goto out;
	uint8_t *next = bstate_begin(&d->io);
	for (uint8_t *r = bstate_next(next, NULL); r;) {
		if ((r[0] == BSTATE_TRIES || r[0] == BSTATE_BOOTED) && named(r, names, n)) {
			bstate_remove(next, r);   /* the next record moved up to r */
			gone++;
			r = *r != BSTATE_END ? r : NULL;
		} else {
			r = bstate_next(next, r);
		}
	}
	if (!gone)
		goto out;
	unsigned k = bstate_seal_next(&d->io);
	char what[200];
	snprintf(what, sizeof what, "boot state block, copy %u (sequence %llu): %u record%s of "
		 "the entries added forgotten", k, (unsigned long long)bstate_seq(d->io.copy[k]),
		 gone, gone == 1 ? "" : "s");
	plan_add(&t->post, d->io.lba + (uint64_t)k * d->io.sectors, d->io.sectors, d->io.copy[k],
		 what);
	txn_summary(t, "the boot state block forgets what it counted for an earlier entry of the "
		    "same name (copy %u, sequence %llu): the entry starts from its own tries", k,
		    (unsigned long long)bstate_seq(d->io.copy[k]));
out:
	free(d);
	return 0;
}
