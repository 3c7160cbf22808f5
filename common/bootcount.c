/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/bootcount.h"

#include "common/fmt.h"
#include "common/str.h"

int bootcount_apply(struct cfg *c, struct bstate_io *s)
{
	char name[BSTATE_NAME_MAX + 1];
	uint8_t *r;
	int i;

	if (s->live < 0 || !(r = bstate_find(s->copy[s->live], BSTATE_ONESHOT, 0)) ||
	    !bstate_name(r, name, sizeof name) || (i = cfg_find(c, name)) < 0)
		return -1;
	str_copy(c->default_name, sizeof c->default_name, c->entries[i].name);
	return i;
}

int bootcount_before(const struct cfg *c, unsigned i, struct bstate_io *s, unsigned fw)
{
	uint8_t *r;

	if (s->live < 0 || !(r = bstate_find(s->copy[s->live], BSTATE_ONESHOT, 0)))
		return 0;
	uint8_t *next = bstate_begin(s);
	bstate_remove(next, bstate_find(next, BSTATE_ONESHOT, 0));
	bstate_set(next, BSTATE_BOOTED, c->entries[i].name, (uint8_t)fw, BSTATE_BOOTED_ONESHOT);
	return bstate_commit(s);
}

bool bootcount_bls_next(const struct cfg_entry *e, char *out, size_t cap)
{
	size_t id = str_len(e->name), n = str_len(e->file), sl = 5;   /* ".conf", any case */

	if (!e->bls || e->tries_left < 0 || n < id + sl)
		return false;
	int32_t left = e->tries_left ? e->tries_left - 1 : 0;
	int32_t done = e->tries_done < 999999999 ? e->tries_done + 1 : 999999999;
	int k = fmt_snprintf(out, cap, "%.*s+%d-%d%s", (int)id, e->file, (int)left, (int)done,
			     e->file + n - sl);
	return k > 0 && (size_t)k < cap;
}
