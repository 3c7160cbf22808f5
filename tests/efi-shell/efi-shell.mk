# SPDX-License-Identifier: BSD-2-Clause
# The UEFI shell case (docs/GUIDE.md "UEFI shell commands"): anysector.efi info/check/ls/cat run by
# startup.nsh in OVMF's internal shell against a 4Kn and a 512e disk; see tests/efi-shell/run.sh.
.PHONY: test-efi-shell
test-efi-shell: $(EFI_BIN)
	@tests/efi-shell/run.sh $(EFI_BIN)
TEST_SUITES += 70:test-efi-shell
