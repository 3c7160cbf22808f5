# SPDX-License-Identifier: BSD-2-Clause
# The chainload tests' boot record (tests/payload/chain/bootrec.asm): reports DL and the LBA at
# DS:SI+8 on COM1.
PAYLOAD_CHAIN := $(BUILD)/payload/chain/bootrec.bin

$(PAYLOAD_CHAIN): tests/payload/chain/bootrec.asm $(UART_INC)
	@mkdir -p $(@D)
	$(Q)$(NASM) -f bin -I$(NASM_INC_DIR)/ -o $@ $<

ALL_TARGETS += $(PAYLOAD_CHAIN)
