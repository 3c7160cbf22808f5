# SPDX-License-Identifier: BSD-2-Clause
# The UEFI application BOOTX64.EFI (gnu-efi 3.0.15, docs/FIRMWARE.md "gnu-efi"): boots anysector.cfg
# entries from the disk it was loaded from, and is a tool when run from the UEFI shell.
EFI_DIR := $(BUILD)/efi
EFI_BIN := $(EFI_DIR)/BOOTX64.EFI
# No firmware bounds it (the ESP holds it); the goal keeps it under the loader it stands beside:
# Debian 12's systemd-bootx64.efi (systemd-boot-efi 252) is 140,891 bytes.
EFI_SIZE_GOAL := 140891
EFI_APP_SRCS := $(wildcard efi/*.c)
EFI_APP_OBJS := $(patsubst efi/%.c,$(EFI_DIR)/app/%.o,$(EFI_APP_SRCS))
EFI_GNUEFI_LDS := /usr/lib/elf_x86_64_efi.lds
EFI_GNUEFI_CRT0 := /usr/lib/crt0-efi-x86_64.o

$(EFI_DIR)/app/%.o: efi/%.c efi/efi.mk
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(EFI_CFLAGS) -fno-asynchronous-unwind-tables $(DEPFLAGS) -c $< -o $@
# SBAT (shim's revocation metadata, https://github.com/rhboot/shim/blob/main/SBAT.md): efi/sbat.csv
# becomes a .sbat section the way shim's own test loaders get theirs: an empty object gains the
# section with objcopy --add-section, the link keeps it (gnu-efi's linker script has no .sbat, so ld
# places it as an orphan after .dynstr, on its own page), and the PE conversion copies it with
# -j .sbat. docs/SECURITY.md ("SBAT") says when the generation in efi/sbat.csv is raised.
EFI_SBAT_CSV := efi/sbat.csv
$(EFI_DIR)/sbat.o: $(EFI_SBAT_CSV) efi/efi.mk
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) -c -x c /dev/null -o $@
	$(Q)objcopy --add-section .sbat=$< --set-section-flags .sbat=contents,alloc,load,readonly,data $@
$(EFI_DIR)/anysector.so: $(EFI_APP_OBJS) $(COMMON_EFI_LIB) $(EFI_DIR)/sbat.o
	$(Q)ld -nostdlib -znocombreloc -shared -Bsymbolic -T $(EFI_GNUEFI_LDS) $(EFI_GNUEFI_CRT0) \
		$^ -L/usr/lib -lefi -lgnuefi -o $@
$(EFI_BIN): $(EFI_DIR)/anysector.so
	$(Q)objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' \
		-j '.rela.*' -j .reloc -j .sbat -j .cfglock --target efi-app-x86_64 --subsystem=10 $< $@
	$(Q)objcopy -O binary --only-section=.sbat $@ $@.sbat && cmp -s $@.sbat $(EFI_SBAT_CSV) \
		|| { echo "$@: its .sbat section is not $(EFI_SBAT_CSV)" >&2; rm -f $@ $@.sbat; exit 1; }
	@rm -f $@.sbat

ALL_TARGETS += $(EFI_BIN)

.PHONY: size
size:: $(EFI_BIN)
	@s=$$(stat -c %s $(EFI_BIN)); \
	echo "efi/BOOTX64.EFI: $$s bytes (goal <= $(EFI_SIZE_GOAL): $$([ $$s -le $(EFI_SIZE_GOAL) ] && echo met || echo MISSED))"
