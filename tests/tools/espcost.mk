# SPDX-License-Identifier: BSD-2-Clause
# What a change to an unmounted ESP costs (issue 31): reads of the disk and writes to the
# temporary copy bounded by what the change writes, not by the ESP's size
# (tests/tools/test_espcost.py).
.PHONY: test-esp-cost
test-esp-cost: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_espcost.py
TEST_SUITES += 55:test-esp-cost
