# SPDX-License-Identifier: BSD-2-Clause
# Installer crash-safety (tests/crash/crash.py): `anysector install` stopped dead after each of its
# writes (ANYSECTOR_TEST_CRASH_AFTER_WRITE=K) must leave a disk that boots the previous state or
# the new one under QEMU, and `anysector restore` must return it byte-identical. The payloads,
# the installer and the stages come through tests/qemu's qemu-prereqs (defined later).
.PHONY: test-crash
test-crash: qemu-prereqs $(BUILD)/asan/tools/anysector $(BUILD)/tests/lib/bootinfo_h.py
	@BUILD=$(BUILD) python3 tests/crash/crash.py
TEST_SUITES += 68:test-crash
