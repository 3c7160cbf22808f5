/* SPDX-License-Identifier: BSD-2-Clause */
/* Writing through the boot partition the running system has mounted (tools/esp/espdir.h): new
 * files staged while the plan is built, and every recorded change applied the durable way. */
#ifndef ANYSECTOR_TOOLS_ESPDIR_WRITE_H
#define ANYSECTOR_TOOLS_ESPDIR_WRITE_H

#include "tools/esp/espdir.h"

/* Records replacing dst by the host file src, staged now in a temporary copy (so the file may
 * change or go before the commit). Returns 0 or an exit code. */
int espdir_put(struct esp_session *s, const char *src, const char *dst);
/* Records renaming the file from, as the disk has it now (not one this change writes), to the
 * name to (esp_rename), applied by rename(2) and an fsync of the directory. Returns 0 or an
 * exit code. */
int espdir_rename(struct esp_session *s, const char *from, const char *to);
/* Applies the recorded changes in order. Returns 0 or an exit code (naming the change that
 * failed; those before it are done). */
int espdir_apply(struct esp_session *s);

#endif
