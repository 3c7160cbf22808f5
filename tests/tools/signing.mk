# SPDX-License-Identifier: BSD-2-Clause
# Signing at install (sbsign/sbverify), shim, SBAT and check's report: image files, no root.
.PHONY: test-signing
test-signing: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO) stages $(BUILD)/payload/efi/payload.efi
	@BUILD=$(BUILD) python3 tests/tools/test_signing.py
TEST_SUITES += 43:test-signing
