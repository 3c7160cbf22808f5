# SPDX-License-Identifier: BSD-2-Clause
.PHONY: test-hygiene
test-hygiene:
	@tests/check-hygiene.sh
TEST_SUITES += 10:test-hygiene
