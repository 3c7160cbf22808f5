# SPDX-License-Identifier: BSD-2-Clause
# The EFI test payload (gnu-efi, docs/FIRMWARE.md "gnu-efi"): prints its LoadOptions and the
# CRC32 of the initrd fetched through LoadFile2 (LINUX_EFI_INITRD_MEDIA_GUID;
# efi/initrd_media.h), in the line tests/payload/report_line.c formats for both payloads, then
# shuts down.
# See tests/payload/efi/README.md.
PAYLOAD_EFI_DIR := $(BUILD)/payload/efi
PAYLOAD_EFI := $(PAYLOAD_EFI_DIR)/payload.efi
GNUEFI_LDS := /usr/lib/elf_x86_64_efi.lds
GNUEFI_CRT0 := /usr/lib/crt0-efi-x86_64.o

$(PAYLOAD_EFI_DIR)/payload.o: tests/payload/efi/payload.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(EFI_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(PAYLOAD_EFI_DIR)/report_line.o: tests/payload/report_line.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(EFI_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(PAYLOAD_EFI_DIR)/payload.so: $(PAYLOAD_EFI_DIR)/report_line.o

# mockload.efi: a minimal LoadFile2 + LoadOptions loader run from the UEFI shell, so the payload
# and the runner's EFI checks are tested without BOOTX64.EFI (tests/qemu/run.py --self-test).
PAYLOAD_EFI_MOCKLOAD := $(PAYLOAD_EFI_DIR)/mockload.efi
$(PAYLOAD_EFI_DIR)/mockload.o: tests/payload/efi/mockload.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(EFI_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(PAYLOAD_EFI_DIR)/%.so: $(PAYLOAD_EFI_DIR)/%.o $(COMMON_EFI_LIB)
	$(Q)ld -nostdlib -znocombreloc -shared -Bsymbolic -T $(GNUEFI_LDS) $(GNUEFI_CRT0) \
		$(filter %.o,$^) $(filter %.a,$^) -L/usr/lib -lefi -lgnuefi -o $@
$(PAYLOAD_EFI_DIR)/%.efi: $(PAYLOAD_EFI_DIR)/%.so
	$(Q)objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' \
		-j '.rela.*' -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@

ALL_TARGETS += $(PAYLOAD_EFI) $(PAYLOAD_EFI_MOCKLOAD)

# The dual payload: the bzImage that is also a PE/COFF EFI application (see mkdual.py), for the
# universal image's one cfg entry that both firmwares boot.
PAYLOAD_DUAL := $(BUILD)/payload/dual/payload-dual.bzImage
$(PAYLOAD_DUAL): tests/payload/efi/mkdual.py $(PAYLOAD_BIOS) $(PAYLOAD_EFI)
	@mkdir -p $(@D)
	$(Q)python3 tests/payload/efi/mkdual.py $(PAYLOAD_BIOS) $(PAYLOAD_EFI) $@
ALL_TARGETS += $(PAYLOAD_DUAL)
