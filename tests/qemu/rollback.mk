# SPDX-License-Identifier: BSD-2-Clause
# Boot counting, one-shot boots and systemd's Boot Loader Interface at boot (tests/qemu/rollback.py):
# Debian's cloud kernel and a busybox initramfs that reads efivarfs, the firmware restarting the
# guest between boots.
.PHONY: test-qemu-rollback
test-qemu-rollback: qemu-prereqs
	@python3 tests/qemu/rollback.py
TEST_SUITES += 69:test-qemu-rollback
