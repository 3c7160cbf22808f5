# SPDX-License-Identifier: BSD-2-Clause
# Secure Boot under OVMF's snakeoil build (tests/qemu/secboot.py): signed loader and kernel,
# refusals by the firmware and by shim, shim with Debian's signed kernel, a changed loader, and a
# configuration locked to the signed loader (boots; a changed byte refused; no BLS, no editor;
# add with and without the key; behind shim; an unpinned entry the loader itself refuses), and
# the same lock followed by stage2 under SeaBIOS.
.PHONY: test-qemu-secboot
test-qemu-secboot: qemu-prereqs
	@python3 tests/qemu/secboot.py $(SECBOOT_CASES)
TEST_SUITES += 78:test-qemu-secboot
