# The EFI test payload (gnu-efi, REFERENCE.md "OVMF"): prints its LoadOptions and the CRC32 of
# the initrd fetched through LoadFile2 (LINUX_EFI_INITRD_MEDIA_GUID), then shuts down.
# See tests/payload/efi/README.md.
PAYLOAD_EFI_DIR := $(BUILD)/payload/efi
PAYLOAD_EFI := $(PAYLOAD_EFI_DIR)/payload.efi
GNUEFI_LDS := /usr/lib/elf_x86_64_efi.lds
GNUEFI_CRT0 := /usr/lib/crt0-efi-x86_64.o

$(PAYLOAD_EFI_DIR)/payload.o: tests/payload/efi/payload.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(EFI_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(PAYLOAD_EFI_DIR)/payload.so: $(PAYLOAD_EFI_DIR)/payload.o $(COMMON_EFI_LIB)
	$(Q)ld -nostdlib -znocombreloc -shared -Bsymbolic -T $(GNUEFI_LDS) $(GNUEFI_CRT0) \
		$^ -L/usr/lib -lefi -lgnuefi -o $@
$(PAYLOAD_EFI): $(PAYLOAD_EFI_DIR)/payload.so
	$(Q)objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' \
		-j '.rela.*' -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@

ALL_TARGETS += $(PAYLOAD_EFI)
