# SPDX-License-Identifier: BSD-2-Clause
# The boot-menu commands on image files (tests/tools/test_menu.py): list, set-default, remove,
# add --replace/--timeout, check of /loader/entries, info's partition GUIDs (no root); and
# tests/tools/test_menu_bls.py: issue 29's Boot Loader Specification menu through list and check.
.PHONY: test-tools-menu
test-tools-menu: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_menu.py
	@BUILD=$(BUILD) python3 tests/tools/test_menu_bls.py
TEST_SUITES += 44:test-tools-menu
