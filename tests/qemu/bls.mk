# SPDX-License-Identifier: BSD-2-Clause
# Boot Loader Specification entries at boot (tests/qemu/bls.py): kernel-install's files on the
# boot partition boot under SeaBIOS (stage2) and OVMF (BOOTX64.EFI), with loader.conf's default
# and timeout, without anysector.cfg, and as anysector.cfg's default.
.PHONY: test-qemu-bls
test-qemu-bls: qemu-prereqs
	@python3 tests/qemu/bls.py
TEST_SUITES += 62:test-qemu-bls
