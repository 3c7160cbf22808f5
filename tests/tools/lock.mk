# SPDX-License-Identifier: BSD-2-Clause
# One writer at a time (tests/tools/test_lock.py): commands started together on an image, a 4Kn
# loop device and a mounted ESP lose no update; a udev-style probe never sees a half-written
# disk; a killed writer leaves no lock; record locks (QEMU's) refuse writers. Loop devices need
# root (else those cases SKIP).
.PHONY: test-lock
test-lock: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_lock.py
TEST_SUITES += 54:test-lock
