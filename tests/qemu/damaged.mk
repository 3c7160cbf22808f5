# SPDX-License-Identifier: BSD-2-Clause
# Damaged media at boot (tests/qemu/damaged.py; cases in tests/qemu/cases/damaged.txt): zeroed or
# contradictory GPTs, looping and short FAT chains, a broken or incomplete anysector.cfg, a pinned
# kernel or initrd changed by one byte, and an initrd larger than memory, under SeaBIOS and OVMF;
# each must give its own sentence and stop.
.PHONY: test-qemu-damaged
test-qemu-damaged: qemu-prereqs
	@python3 tests/qemu/damaged.py --suite qemu-damaged tests/qemu/cases/damaged.txt
TEST_SUITES += 64:test-qemu-damaged
