; SPDX-License-Identifier: BSD-2-Clause
; The boot record of the chainload tests (tests/qemu/chain.py): it says on COM1 what a boot
; sector is handed, "ANYSECTOR-CHAIN dl=0x80 lba=2048", the drive in DL and the start LBA of the
; 16-byte MBR-style entry at DS:SI (its bytes 8..11), then ends QEMU through isa-debug-exit
; (exit status 33). One 512-byte record with 0x55AA at 510, also when a 4Kn disk's whole
; 4096-byte sector is loaded. COM1 is already set up by whoever chainloaded it (stage2).
bits 16
org 0x7C00

%include "uart.inc"                     ; common/uart.h's register names

start:
        cli
        mov     eax, [si + 8]           ; the entry's start LBA, while DS:SI is still the caller's
        xor     bx, bx
        mov     ds, bx
        mov     es, bx
        mov     ss, bx
        mov     sp, 0x7C00
        mov     [lba], eax
        mov     [drive], dl
        mov     si, said_dl
        call    puts
        mov     al, [drive]
        shr     al, 4
        call    nibble
        mov     al, [drive]
        call    nibble
        mov     si, said_lba
        call    puts
        mov     eax, [lba]
        call    decimal
        mov     si, said_end
        call    puts
        mov     dx, 0xF4
        mov     al, 0x10
        out     dx, al                  ; isa-debug-exit: QEMU exits with (0x10 << 1) | 1
.halt:
        hlt
        jmp     .halt

puts:
        lodsb
        test    al, al
        jz      .done
        call    putc
        jmp     puts
.done:
        ret

; AL's low four bits as a hex digit.
nibble:
        and     al, 15
        add     al, '0'
        cmp     al, '9'
        jbe     putc
        add     al, 'a' - '9' - 1
        ; fall through
putc:
        push    dx
        push    ax
        mov     dx, UART_COM1 + UART_LSR
.wait:
        in      al, dx
        test    al, UART_LSR_THR_EMPTY
        jz      .wait
        pop     ax
        mov     dx, UART_COM1 + UART_DATA
        out     dx, al
        pop     dx
        ret

; EAX in decimal.
decimal:
        xor     cx, cx
        mov     ebx, 10
.digit:
        xor     edx, edx
        div     ebx
        push    dx
        inc     cx
        test    eax, eax
        jnz     .digit
.print:
        pop     ax
        add     al, '0'
        call    putc
        loop    .print
        ret

said_dl  db "ANYSECTOR-CHAIN dl=0x", 0
said_lba db " lba=", 0
said_end db 13, 10, 0
drive    db 0
lba      dd 0

        times 510 - ($ - $$) db 0
        dw      0xAA55
