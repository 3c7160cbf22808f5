# SPDX-License-Identifier: BSD-2-Clause
# The kernel-install plugin (hooks/90-anysector.install) against mkimage disk images
# (tests/tools/test_kernel_install.py, no root): every layout and environment case, exit 77,
# Debian's kernel-install running it, make install's path, shellcheck.
.PHONY: test-kernel-install
test-kernel-install: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_kernel_install.py
TEST_SUITES += 57:test-kernel-install
