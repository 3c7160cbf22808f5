/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef ANYSECTOR_STAGE2_A20_H
#define ANYSECTOR_STAGE2_A20_H

#include <stdbool.h>

/* Turns A20 on; returns how (for the log), or NULL when every method failed. */
const char *a20_enable(void);

#endif
