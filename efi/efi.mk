# The UEFI application BOOTX64.EFI (gnu-efi 3.0.15, docs/FIRMWARE.md "gnu-efi"): boots anysector.cfg
# entries from the disk it was loaded from, and is a tool when run from the UEFI shell.
EFI_DIR := $(BUILD)/efi
EFI_BIN := $(EFI_DIR)/BOOTX64.EFI
EFI_SIZE_GOAL := 98304
EFI_APP_SRCS := $(wildcard efi/*.c)
EFI_APP_OBJS := $(patsubst efi/%.c,$(EFI_DIR)/app/%.o,$(EFI_APP_SRCS))
EFI_GNUEFI_LDS := /usr/lib/elf_x86_64_efi.lds
EFI_GNUEFI_CRT0 := /usr/lib/crt0-efi-x86_64.o

$(EFI_DIR)/app/%.o: efi/%.c efi/efi.mk
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(EFI_CFLAGS) -fno-asynchronous-unwind-tables $(DEPFLAGS) -c $< -o $@
$(EFI_DIR)/anysector.so: $(EFI_APP_OBJS) $(COMMON_EFI_LIB)
	$(Q)ld -nostdlib -znocombreloc -shared -Bsymbolic -T $(EFI_GNUEFI_LDS) $(EFI_GNUEFI_CRT0) \
		$^ -L/usr/lib -lefi -lgnuefi -o $@
$(EFI_BIN): $(EFI_DIR)/anysector.so
	$(Q)objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' \
		-j '.rela.*' -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@

ALL_TARGETS += $(EFI_BIN)

.PHONY: size
size:: $(EFI_BIN)
	@s=$$(stat -c %s $(EFI_BIN)); \
	echo "efi/BOOTX64.EFI: $$s bytes (goal <= $(EFI_SIZE_GOAL): $$([ $$s -le $(EFI_SIZE_GOAL) ] && echo met || echo MISSED))"
