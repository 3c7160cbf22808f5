/* SPDX-License-Identifier: BSD-2-Clause */
/* Rebuilding the broken half of a dual GPT (`anysector repair`) as a write plan. */
#ifndef ANYSECTOR_TOOLS_DUAL_REPAIR_H
#define ANYSECTOR_TOOLS_DUAL_REPAIR_H

#include <stdint.h>

#include "common/gpt.h"
#include "tools/dev/hostdev.h"
#include "tools/disk/dual_check.h"
#include "tools/plan/plan.h"

/* The writes that rebuild both GPTs of s from src (in src_lss units) in the layout of s->geo,
 * as ops of p (p->lss = h's sector size): every sector of the two GPT regions ([0, first usable)
 * and [end usable, N)) that must change, keeping the first 512 bytes except the protective
 * entry's size and end CHS, zeroing stale bytes of the regions. Tail ops come before head ops.
 * Returns 0 or an exit code (reported). */
int dual_repair_plan(struct hostdev *h, const struct dual_state *s, const struct gpt *src,
		     uint32_t src_lss, struct plan *p);

#endif
