# SPDX-License-Identifier: BSD-2-Clause
# The Debian kernel hooks (hooks/) against a fake /boot and mkimage disk images
# (tests/tools/test_hooks.py, no root): anysector-update, zz-anysector's hook rules, the package's
# paths and modes (the .deb from tools/mkdeb.sh --if-changed: a minute once per tree), shellcheck.
.PHONY: test-hooks
test-hooks: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO) stages
	@BUILD=$(BUILD) python3 tests/tools/test_hooks.py
TEST_SUITES += 47:test-hooks
