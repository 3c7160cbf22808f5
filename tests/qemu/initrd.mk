# SPDX-License-Identifier: BSD-2-Clause
# Large initrds (tests/qemu/initrd.py): a 256 MiB initrd where the kernel accepts it under SeaBIOS
# (below initrd_addr_max) and OVMF (below 4 GiB, above when the RAM below is too small), checked
# byte for byte in the guest, and the sentence that names the largest that fits, before any
# read, when it cannot.
.PHONY: test-qemu-initrd
test-qemu-initrd: qemu-prereqs
	@python3 tests/qemu/initrd.py
TEST_SUITES += 81:test-qemu-initrd
