# SPDX-License-Identifier: BSD-2-Clause
# make bench's read floors make exactly the calls anysector made, on the bench's four disks
# (tests/qemu/readfloor.py): the bench itself is not part of make test.
.PHONY: test-qemu-read-floor
test-qemu-read-floor: qemu-prereqs $(BENCH_FLOOR_BIOS) $(BENCH_FLOOR_EFI)
	@python3 tests/qemu/readfloor.py
TEST_SUITES += 67:test-qemu-read-floor
