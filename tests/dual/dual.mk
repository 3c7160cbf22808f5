# SPDX-License-Identifier: BSD-2-Clause
# One image for every sector size (`--sector-size any`, a dual GPT; docs/GUIDE.md "One image for
# every sector size"). test-dual (suite 52): the installer on image files and, as root, loop devices of
# both sizes with sgdisk, sfdisk, partx, fsck.fat and parted (when installed). test-qemu-dual
# (suite 79): the same image booted by SeaBIOS and OVMF on 512n, 512e and 4Kn disks, OVMF's own
# repair of a damaged half on a writable disk, and Linux's view of the partitions at both sizes.
.PHONY: test-dual test-qemu-dual
test-dual: $(BUILD)/asan/tools/anysector $(BUILD)/tests/lib/bootinfo_h.py
	@BUILD=$(BUILD) python3 tests/dual/test_dual.py
test-qemu-dual: qemu-prereqs
	@python3 tests/qemu/run.py --suite qemu-dual tests/qemu/cases/dual.txt; a=$$?; \
		BUILD=$(BUILD) python3 tests/dual/firmware.py; b=$$?; [ $$a = 0 ] && [ $$b = 0 ]
TEST_SUITES += 52:test-dual 79:test-qemu-dual
