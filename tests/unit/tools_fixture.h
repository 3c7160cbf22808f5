/* SPDX-License-Identifier: BSD-2-Clause */
/* The cmocka fixture of tests of tools/ code: a fresh report as the installer's g_report
 * (tools/base/exit_codes.h), collecting what the code under test says. */
#ifndef ANYSECTOR_TEST_TOOLS_FIXTURE_H
#define ANYSECTOR_TEST_TOOLS_FIXTURE_H

#include "tools/base/report.h"

extern struct report unit_report;

int tools_setup(void **state);
int tools_teardown(void **state);

#endif
