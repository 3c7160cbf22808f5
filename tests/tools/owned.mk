# SPDX-License-Identifier: BSD-2-Clause
# Ownership on the ESP and installing beside another system (tests/tools/test_owned.py): image
# files, no root; the real stages and the EFI test payload as Windows' boot manager.
.PHONY: test-tools-owned
test-tools-owned: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO) stages $(PAYLOAD_EFI)
	@BUILD=$(BUILD) python3 tests/tools/test_owned.py
TEST_SUITES += 49:test-tools-owned
