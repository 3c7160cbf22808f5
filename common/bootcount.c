/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/bootcount.h"

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
