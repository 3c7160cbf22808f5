# SPDX-License-Identifier: BSD-2-Clause
# QEMU boot matrix (tests/qemu/README.md) and `make run`.
# The cases need the installer and the stages, which other parts build: their targets are
# taken from ALL_TARGETS when those rules exist and built with -k, so a missing or broken part
# shows up as the cases' clear failure ("mkimage missing", mkimage's own error) rather than
# as make refusing to start the suite.
QEMU_RUNNER := python3 tests/qemu/run.py
QEMU_PAYLOADS := $(PAYLOAD_BIOS) $(PAYLOAD_EFI) $(PAYLOAD_EFI_MOCKLOAD) $(PAYLOAD_DUAL)
QEMU_OTHER_PARTS = $(filter $(BUILD)/tools/anysector $(BUILD)/stages/%,$(ALL_TARGETS))

.PHONY: qemu-prereqs test-qemu-bios test-qemu-efi test-qemu-linux test-qemu-faults test-qemu-selftest
qemu-prereqs: $(QEMU_PAYLOADS) $(PY_BOOTINFO)
	@t='$(QEMU_OTHER_PARTS)'; if [ -n "$$t" ]; then $(MAKE) --no-print-directory -k $$t || \
		echo "qemu: building the installer or the stages failed; the cases will say what is missing"; \
		else echo "qemu: no rule builds $(BUILD)/tools/anysector or $(BUILD)/stages yet"; fi

test-qemu-bios: qemu-prereqs
	@$(QEMU_RUNNER) --suite qemu-bios --self-test bios tests/qemu/cases/bios.txt
test-qemu-efi: qemu-prereqs
	@$(QEMU_RUNNER) --suite qemu-efi --self-test efi tests/qemu/cases/efi.txt
test-qemu-linux: qemu-prereqs
	@$(QEMU_RUNNER) --suite qemu-linux --self-test linux tests/qemu/cases/linux.txt
# Read errors injected with QEMU's blkdebug: retried, reported with file and LBA, or the backup GPT.
test-qemu-faults: qemu-prereqs
	@$(QEMU_RUNNER) --suite qemu-faults --self-test faults tests/qemu/cases/faults.txt
# The runner's own tests alone (no loaders or installer needed).
test-qemu-selftest: $(QEMU_PAYLOADS) $(PY_BOOTINFO)
	@$(QEMU_RUNNER) --self-test all

TEST_SUITES += 60:test-qemu-bios 66:test-qemu-faults 71:test-qemu-efi 80:test-qemu-linux

# make run: the demo disk (GPT, both stages, the dual payload as default entry) under SeaBIOS,
# then OVMF, serial console on the terminal. KERNEL=... [INITRD=...] [CMDLINE=...] boots a real
# kernel instead; RUN_DISK=FRONTEND:SECTORS picks the disk (default nvme:4Kn).
RUN_DISK ?= nvme:4Kn
run:: deps
	@t='$(QEMU_OTHER_PARTS)'; $(MAKE) --no-print-directory $(PAYLOAD_DUAL) $$t
	@KERNEL='$(KERNEL)' INITRD='$(INITRD)' CMDLINE='$(CMDLINE)' RUN_DISK='$(RUN_DISK)' \
		python3 tests/qemu/demo.py

# The boot menu driven over the serial line (tests/qemu/menu_keys.py): editing, Esc, digits,
# "editor off", under SeaBIOS and OVMF.
.PHONY: test-qemu-menu
test-qemu-menu: qemu-prereqs
	@python3 tests/qemu/menu_keys.py
TEST_SUITES += 72:test-qemu-menu

# Chainload entries under SeaBIOS, EFI-application entries under OVMF (tests/qemu/chain.py).
.PHONY: test-qemu-chain
test-qemu-chain: qemu-prereqs $(PAYLOAD_CHAIN)
	@python3 tests/qemu/chain.py
TEST_SUITES += 74:test-qemu-chain

# Which MBR partition boots when stage2 has none recorded (tests/qemu/mbr_logical.py): a logical
# FAT partition never does, and stage2's serial line names the partition `anysector info` does.
.PHONY: test-qemu-mbr-logical
test-qemu-mbr-logical: qemu-prereqs
	@python3 tests/qemu/mbr_logical.py
TEST_SUITES += 63:test-qemu-mbr-logical

# Measured boot with a swtpm TPM 2.0 under OVMF and SeaBIOS (tests/qemu/tpm.py): the replayed
# event log equals the PCRs, anysector's events carry the host's digests, and what changes what.
.PHONY: test-qemu-tpm
test-qemu-tpm: qemu-prereqs
	@python3 tests/qemu/tpm.py
TEST_SUITES += 82:test-qemu-tpm

# memtest86+ (Debian's package) under SeaBIOS (--kernel .bin) and OVMF (--efi .efi): its banner
# on the serial console (tests/qemu/memtest.py).
.PHONY: test-qemu-memtest
test-qemu-memtest: qemu-prereqs
	@python3 tests/qemu/memtest.py
TEST_SUITES += 76:test-qemu-memtest

# Installing beside Windows under UEFI: anysector's own Boot#### entry, its chainload entry to
# the "Windows" payload, and Windows' own entry still booting (tests/qemu/beside.py).
.PHONY: test-qemu-beside
test-qemu-beside: qemu-prereqs
	@python3 tests/qemu/beside.py
TEST_SUITES += 75:test-qemu-beside

# Unified kernel images (tests/qemu/uki.py): one UKI built from systemd-boot-efi's stub boots
# under SeaBIOS and OVMF, damaged ones give their sentences, pins and Secure Boot judge it.
.PHONY: test-qemu-uki
test-qemu-uki: qemu-prereqs
	@python3 tests/qemu/uki.py $(UKI_CASES)
TEST_SUITES += 83:test-qemu-uki
