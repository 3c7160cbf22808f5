; SPDX-License-Identifier: BSD-2-Clause
; The protected-mode entry of the BIOS test payload, linked first at 0x100000 (code32_start).
; Entered from setup.asm (or any loader using the 32-bit protocol) with CS = 0x10 flat,
; ESI = linear address of the boot_params / setup header block, interrupts off.

bits 32
section .text.entry progbits alloc exec nowrite align=16

global _start
extern payload_main
extern _stack_top

_start:
	jmp short entry                 ; 2 bytes; kernel_info must sit at offset 0x10
	times 0x10 - ($ - _start) db 0xCC

; kernel_info (boot protocol 2.15): kernel_info_offset in the setup header points here.
kernel_info:
	db "LToP"                       ; header
	dd kernel_info_end - kernel_info    ; size
	dd kernel_info_end - kernel_info    ; size_total
	dd 0                            ; setup_type_max
kernel_info_end:

entry:
	cli
	cld
	mov ax, 0x18
	mov ds, ax
	mov es, ax
	mov fs, ax
	mov gs, ax
	mov ss, ax
	mov esp, _stack_top
	push esi
	call payload_main               ; does not return
.halt:	hlt
	jmp .halt

section .note.GNU-stack noalloc noexec nowrite progbits
