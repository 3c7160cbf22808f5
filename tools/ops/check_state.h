/* SPDX-License-Identifier: BSD-2-Clause */
/* check's look at the boot state block (common/bootstate.h) a whole stage2 records: where it
 * lies, which copies are whole, and what it holds. */
#ifndef ANYSECTOR_TOOLS_CHECK_STATE_H
#define ANYSECTOR_TOOLS_CHECK_STATE_H

#include "tools/base/report.h"
#include "tools/dev/hostdev.h"
#include "tools/disk/inspect.h"

/* offset: the state block's byte offset from stage2's header (0: it records none). */
void check_state(struct hostdev *h, const struct disk_info *di, uint32_t offset,
		 struct report *r);

#endif
