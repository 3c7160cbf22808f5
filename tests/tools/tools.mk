# SPDX-License-Identifier: BSD-2-Clause
# Installer tests: image files (suite 40) and loop devices cross-checked against sfdisk, sgdisk,
# fsck.fat and the kernel (suite 51, root). Both use the ASan+UBSan build of anysector.
# (tools/tools.mk sorts after this file, so the binary is named here by its path.)
.PHONY: test-tools test-loop-tools
test-tools: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_tools.py
test-loop-tools: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_loop.py
TEST_SUITES += 40:test-tools 51:test-loop-tools
