# SPDX-License-Identifier: BSD-2-Clause
# The entry kinds of `anysector add` (--efi, --efi --partition N, --chainload) and --pin on
# image files (tests/tools/test_add_kinds.py); their boots are in test-qemu-chain (pins:
# test-qemu-damaged).
.PHONY: test-add-kinds
test-add-kinds: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_add_kinds.py
TEST_SUITES += 42:test-add-kinds
