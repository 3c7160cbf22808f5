# SPDX-License-Identifier: BSD-2-Clause
# A locked configuration on the installer's side (tests/tools/test_lockcfg.py): --lock-config,
# changes of a locked menu with and without the key, a changed anysector.cfg, --shim, crash
# points of a locked add. Image files, no root; booting them is test-qemu-secboot's.
.PHONY: test-lockcfg
test-lockcfg: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO) stages $(BUILD)/payload/efi/payload.efi
	@BUILD=$(BUILD) python3 tests/tools/test_lockcfg.py
TEST_SUITES += 56:test-lockcfg
