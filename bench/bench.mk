# SPDX-License-Identifier: BSD-2-Clause
# Boot benchmarks (not part of `make test`): anysector against GRUB on FAT and on ext2 and syslinux
# (BIOS) and systemd-boot (UEFI), each against a floor without a loader (-kernel; the firmware
# starting a trivial EFI application), and anysector's own reads against the firmware's read path
# for the same calls (the read floors, bench/floor/); same kernel/initrd/disk, every loader once
# per round.
# `make bench BENCH_RUNS=9 BENCH_CASES='bios-*'`; the large-initrd cases (`*-512M`, `*-1G`) run
# BENCH_LARGE_RUNS rounds; anysector and its read floor boot in alternation until they have
# BENCH_FLOOR_RUNS rounds (bench/bench.py FLOOR_RUNS). The `esp-add-*` cases time `anysector
# add` onto ESPs of 256 MiB, 1 GiB and 4 GiB of a loop device against dd (bench/espcost.py; no
# QEMU).
# Results: $(BUILD)/bench/{results.txt,samples.csv,logs/}; a full run (every case, at least 5
# rounds, GPT) also rewrites bench/RESULTS.md, any other run writes $(BUILD)/bench/RESULTS.md.
BENCH_RUNS ?= 5
BENCH_CASES ?= *
BENCH_TIMEOUT ?= 120
BENCH_LABEL ?= gpt
BENCH_LARGE_RUNS ?= 1
BENCH_FLOOR_RUNS ?= 15

# The command quoted in the report: make's own goal with the settings that differ from the defaults.
BENCH_COMMAND = $(strip make$(if $(filter-out build,$(BUILD)), BUILD=$(BUILD)) bench \
	$(if $(filter-out 5,$(BENCH_RUNS)),BENCH_RUNS=$(BENCH_RUNS)) \
	$(if $(filter-out *,$(BENCH_CASES)),BENCH_CASES='$(BENCH_CASES)') \
	$(if $(filter-out 120,$(BENCH_TIMEOUT)),BENCH_TIMEOUT=$(BENCH_TIMEOUT)) \
	$(if $(filter-out gpt,$(BENCH_LABEL)),BENCH_LABEL=$(BENCH_LABEL)) \
	$(if $(filter-out 1,$(BENCH_LARGE_RUNS)),BENCH_LARGE_RUNS=$(BENCH_LARGE_RUNS)) \
	$(if $(filter-out 15,$(BENCH_FLOOR_RUNS)),BENCH_FLOOR_RUNS=$(BENCH_FLOOR_RUNS)))

# The floor readers (bench/floor/): the BIOS one is loaded by stage1 in stage2's place, the UEFI
# one started by the firmware in BOOTX64.EFI's; the bench appends or patches in the calls to make.
BENCH_FLOOR_BIOS := $(BUILD)/bench/floor/bios.bin
BENCH_FLOOR_EFI := $(BUILD)/bench/floor/floor.efi
# stage1/stage1.mk is read after this file, so its STAGE1_INC is still empty here: name the file.
$(BENCH_FLOOR_BIOS): bench/floor/bios.asm $(BUILD)/stage1/bootinfo.inc $(UART_INC)
	@mkdir -p $(@D)
	$(Q)$(NASM) -f bin -I$(BUILD)/stage1/ -I$(NASM_INC_DIR)/ -o $@ $<
$(BUILD)/bench/floor/efi.o: bench/floor/efi.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(EFI_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/bench/floor/floor.so: $(BUILD)/bench/floor/efi.o $(COMMON_EFI_LIB)
	$(Q)ld -nostdlib -znocombreloc -shared -Bsymbolic -T $(EFI_GNUEFI_LDS) $(EFI_GNUEFI_CRT0) \
		$^ -L/usr/lib -lefi -lgnuefi -o $@
$(BENCH_FLOOR_EFI): $(BUILD)/bench/floor/floor.so
	$(Q)objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' \
		-j '.rela.*' -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
ALL_TARGETS += $(BENCH_FLOOR_BIOS) $(BENCH_FLOOR_EFI)

# The installer and the stages are built when their rules exist; the bench still measures the
# peers (and says why anysector is missing) when they do not build.
bench::
	@tools/deps.sh ensure
	@t='$(filter $(BUILD)/tools/anysector $(BUILD)/stages/% $(PAYLOAD_EFI) $(BENCH_FLOOR_BIOS) \
		$(BENCH_FLOOR_EFI),$(ALL_TARGETS))'; \
	if [ -n "$$t" ]; then $(MAKE) --no-print-directory -s -k $$t || \
		echo "bench: building anysector failed; benchmarking the peers only"; fi
	@BENCH_RUNS='$(BENCH_RUNS)' BENCH_CASES='$(BENCH_CASES)' BENCH_TIMEOUT='$(BENCH_TIMEOUT)' \
		BENCH_LABEL='$(BENCH_LABEL)' BENCH_LARGE_RUNS='$(BENCH_LARGE_RUNS)' \
		BENCH_FLOOR_RUNS='$(BENCH_FLOOR_RUNS)' \
		BENCH_COMMAND="$(BENCH_COMMAND)" python3 bench/bench.py
