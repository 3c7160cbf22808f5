/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/ops/state_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "common/bootstate.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"

/* Whether rec names one of names. */
static bool named(const uint8_t *rec, const char *const *names, unsigned n)
{
	char name[BSTATE_NAME_MAX + 1];

	if (!bstate_name(rec, name, sizeof name))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (!strcasecmp(names[i], name))
			return true;
	return false;
}

/* Takes the records of the types in the mask types (bit 1 << type) that name one of names out
 * of the block, in one copy written after the boot partition's change (t->post); what_line
 * ends the plan's line, the summary is head, the copy written, then tail. Returns 0 (nothing
 * to do is 0 too). */
static int state_drop(struct txn *t, const char *const *names, unsigned n, unsigned types,
		      const char *what_line, const char *head, const char *tail)
{
	struct bstate_disk *d = xcalloc(1, sizeof *d);
	const char *why;
	unsigned gone = 0;

	if (!n || bstate_disk_read(&t->h->dev, d, &why) || !d->offset || d->io.live < 0)
		goto out;
	uint8_t *next = bstate_begin(&d->io);
	for (uint8_t *r = bstate_next(next, NULL); r;) {
		if (r[0] < 8 && (types >> r[0] & 1) && named(r, names, n)) {
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
	char what[400];
	snprintf(what, sizeof what, "boot state block, copy %u (sequence %llu): %u record%s of %s",
		 k, (unsigned long long)bstate_seq(d->io.copy[k]), gone, gone == 1 ? "" : "s",
		 what_line);
	plan_add(&t->post, d->io.lba + (uint64_t)k * d->io.sectors, d->io.sectors, d->io.copy[k],
		 what);
	txn_summary(t, "%s (copy %u, sequence %llu)%s", head, k,
		    (unsigned long long)bstate_seq(d->io.copy[k]), tail);
out:
	free(d);
	return 0;
}

int txn_state_forget(struct txn *t, const char (*names)[CFG_NAME_MAX], unsigned n)
{
	const char *list[CFG_MAX_ENTRIES];

	for (unsigned i = 0; i < n && i < CFG_MAX_ENTRIES; i++)
		list[i] = names[i];
	return state_drop(t, list, n < CFG_MAX_ENTRIES ? n : CFG_MAX_ENTRIES,
			  1u << BSTATE_TRIES | 1u << BSTATE_BOOTED, "the entries added forgotten",
			  "the boot state block forgets what it counted for an earlier entry of the "
			  "same name", ": the entry starts from its own tries");
}

int txn_state_removed(struct txn *t, const char *const *names, unsigned n)
{
	char head[600];

	snprintf(head, sizeof head, "the boot state block drops what it held for the removed entry "
		 "'%s'", n ? names[0] : "");
	return state_drop(t, names, n,
			  1u << BSTATE_ONESHOT | 1u << BSTATE_TRIES | 1u << BSTATE_BOOTED,
			  "the removed entry dropped", head, "");
}
