; The real-mode part of the BIOS test payload: a bzImage boot sector + setup header (boot
; protocol 2.15) and a small 16-bit setup that does what Linux's arch/x86/boot/ does before the
; protected-mode kernel runs: A20 on, a flat GDT, PE set, far jump to code32_start with ESI =
; the linear address of the setup header block (the "boot_params" the 32-bit part reads).
;
; A loader enters at seg+0x20:0 in real mode with DS=ES=SS=seg and interrupts off; the
; protected-mode part (pm.bin, linked at 0x100000) follows the setup sectors in the file.
;
; Assembled with: nasm -f bin -i <dir of pm.bin>/ -DINIT_SIZE=<bytes> setup.asm

bits 16
org 0

%ifndef INIT_SIZE
%error "INIT_SIZE (bytes of memory the protected-mode part needs from 0x100000) is not defined"
%endif

BOOT_CS  equ 0x10             ; the selectors Linux's 32-bit boot protocol uses
BOOT_DS  equ 0x18
COM1     equ 0x3F8
EXIT_PORT equ 0xF4            ; isa-debug-exit
EXIT_ERROR equ 0x11           ; QEMU exits with (0x11 << 1) | 1 = 35

; ---- sector 0: the legacy boot sector; only the header at 0x1F1 matters -------------------
boot_sector:
	cli
	hlt
	jmp boot_sector
	times 0x1F1 - ($ - $$) db 0

setup_sects:		db SETUP_SECTS
root_flags:		dw 0
syssize:		dd (pm_end - pm_start + 15) / 16
ram_size:		dw 0
vid_mode:		dw 0xFFFF               ; "normal"
root_dev:		dw 0
boot_flag:		dw 0xAA55
; 0x200: the real-mode entry point a loader jumps to (seg+0x20:0)
			jmp short setup_entry
header:			db "HdrS"
version:		dw 0x020F               ; 2.15
realmode_swtch:		dd 0
start_sys_seg:		dw 0x1000
kernel_version:		dw version_string - 0x200
type_of_loader:		db 0
loadflags:		db 0x01                 ; LOADED_HIGH
setup_move_size:	dw 0x8000
code32_start:		dd 0x100000
ramdisk_image:		dd 0
ramdisk_size:		dd 0
bootsect_kludge:	dd 0
heap_end_ptr:		dw 0
ext_loader_ver:		db 0
ext_loader_type:	db 0
cmd_line_ptr:		dd 0
initrd_addr_max:	dd 0x7FFFFFFF
kernel_alignment:	dd 0x200000
relocatable_kernel:	db 0
min_alignment:		db 12
xloadflags:		dw 0
cmdline_size:		dd 2047                 ; COMMAND_LINE_SIZE - 1, as Linux
hardware_subarch:	dd 0
hardware_subarch_data:	dq 0
payload_offset:		dd 0
payload_length:		dd 0
setup_data:		dq 0
pref_address:		dq 0x100000
init_size:		dd INIT_SIZE
handover_offset:	dd 0
kernel_info_offset:	dd 0x10                 ; entry32.asm places "LToP" there
%if ($ - $$) != 0x26C
%error "setup header does not end at 0x26C"
%endif

setup_entry:
	cli
	cld
	; The loader's CS is seg+0x20; run with CS = DS = seg so labels (org 0) are file offsets.
	mov ax, cs
	sub ax, 0x20
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov sp, stack_top
	push ax
	push word .normalized
	retf
.normalized:
	movzx esi, ax
	shl esi, 4                      ; ESI = linear address of the header block, kept to the end

	call a20_enable
	jc .no_a20

	mov eax, esi
	add eax, gdt
	mov [gdt_desc + 2], eax
	lgdt [gdt_desc]
	lidt [idt_desc]                 ; an empty IDT: any exception becomes a triple fault, which
					; QEMU with -no-reboot turns into an exit instead of a loop
	mov eax, [code32_start]
	mov [pm_jump], eax
	mov eax, cr0
	or al, 1
	mov cr0, eax
	jmp dword far [pm_jump]         ; DS still holds its real-mode base here: fine until reloaded

.no_a20:
	mov si, msg_no_a20
	call serial_puts
	mov al, EXIT_ERROR
	out EXIT_PORT, al
.halt:	hlt
	jmp .halt

; CF clear when A20 is on. Tries the BIOS (int 15h AX=2401h), then the fast gate (port 0x92).
a20_enable:
	call a20_test
	jnc .done
	mov ax, 0x2401
	push esi
	int 0x15
	pop esi
	cli
	call a20_test
	jnc .done
	in al, 0x92
	or al, 2
	and al, 0xFE                    ; never the reset bit
	out 0x92, al
	mov cx, 0xFFFF
.wait:	call a20_test
	jnc .done
	loop .wait
	stc
.done:	ret

; CF set when 0000:0500 and FFFF:0510 are the same byte (the address wraps: A20 off).
a20_test:
	push ds
	push es
	xor ax, ax
	mov ds, ax
	dec ax
	mov es, ax
	mov al, [ds:0x500]
	mov ah, [es:0x510]
	mov byte [ds:0x500], 0x00
	mov byte [es:0x510], 0xFF
	cmp byte [ds:0x500], 0xFF
	mov [es:0x510], ah
	mov [ds:0x500], al
	pop es
	pop ds
	stc
	je .off
	clc
.off:	ret

; DS:SI -> NUL-terminated string to COM1 (polled; a missing UART gives up after a bounded wait).
serial_puts:
	lodsb
	test al, al
	jz .end
	mov bl, al
	mov dx, COM1 + 5
	mov cx, 0xFFFF
.busy:	in al, dx
	test al, 0x20
	loopz .busy
	mov al, bl
	mov dx, COM1
	out dx, al
	jmp serial_puts
.end:	ret

version_string:		db "anysector test payload (boot protocol 2.15)", 0
msg_no_a20: db "ANYSECTOR-PAYLOAD-ERROR A20 gate cannot be enabled", 13, 10, 0

align 8
gdt:	dq 0
	dq 0
	dq 0x00CF9A000000FFFF           ; 0x10: flat 32-bit code
	dq 0x00CF92000000FFFF           ; 0x18: flat data
gdt_end:
gdt_desc:
	dw gdt_end - gdt - 1
	dd 0                            ; patched with the linear address of gdt
idt_desc:
	dw 0
	dd 0
pm_jump:
	dd 0                            ; code32_start
	dw BOOT_CS

	alignb 16
stack:	times 1024 db 0
stack_top:

	times (-($ - $$)) & 511 db 0
SETUP_SECTS equ ($ - $$) / 512 - 1

; ---- the protected-mode part, loaded at code32_start (0x100000) --------------------------
pm_start:
	incbin "pm.bin"
pm_end:
