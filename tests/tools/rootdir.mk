# SPDX-License-Identifier: BSD-2-Clause
# One-step images (mkimage --root-dir): image files read back with debugfs and mtools; as root
# also the kernel's partition device (blkid's PARTUUID, a mount).
.PHONY: test-rootdir
test-rootdir: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_rootdir.py
TEST_SUITES += 41:test-rootdir
