; SPDX-License-Identifier: BSD-2-Clause
; make bench's BIOS floor reader: what the firmware's int 13h costs for the bytes stage2 reads.
; The bench puts it where stage2 lies on a copy of anysector's disk, so stage1 loads and enters
; it exactly as it does stage2 (0000:8000, DL = drive, CX = bytes per sector). It makes the
; AH=42h calls stage2 made for the kernel and initrd in a recorded boot (stage2's
; "LBA+sectors x calls" runs, appended by the bench after `table`), into stage2's bounce buffer
; (linker.ld __bounce), four times, adding one piece of stage2's work per call each time:
;   pass 1  the calls alone, from real mode: the floor;
;   pass 2  and after each call a switch to 32-bit protected mode and back (stage2 runs in
;           protected mode and goes to real mode for each call);
;   pass 3  and in protected mode a copy of the call's bytes out of the bounce buffer to the
;           next free place from 1 MiB up, memory the guest has not written yet (stage2 copies
;           each call's bytes to where the kernel or initrd goes, with the same loop of eight
;           32-bit moves: stage2/copy.c);
;   pass 4  the same, into the memory pass 3 wrote.
; It prints a line before the first call and one after each pass, on COM1 and the screen, then
; "done" and halts; the time between two lines is one pass. It never parses or hashes.
;
; The table (little-endian): "ASFLOOR1", u32 bytes per sector, u32 number of runs, then per run
; u64 first LBA, u32 sectors per call, u32 calls (each call's LBA follows the one before).

%include "bootinfo.inc"
%include "uart.inc"

BOUNCE          equ 0x50000             ; stage2's __bounce, 64 KiB aligned
STACK_TOP       equ 0x7000              ; stage2's __stack_top, below stage1's page
COPY_TO         equ 0x100000            ; where pass 3 and 4 copy to (stage2's kernel goes here)
PASSES          equ 4
; What this program writes (the DAP and its counters) lies in a page of its own, far below the
; stack's few bytes: under QEMU's TCG a store into a page holding translated code takes the
; self-modifying-code path (docs/FIRMWARE.md), which made a first version of this reader, its
; variables beside its code, slower than stage2 itself.
VARS            equ 0x1000

CODE32          equ 0x08
DATA32          equ 0x10
CODE16          equ 0x18
DATA16          equ 0x20

bits 16
org STAGE2_LOAD_ADDR

start:
        jmp     short entry
        times   STAGE2_MAGIC_OFF - ($ - $$) db 0
        db      STAGE2_MAGIC            ; stage1 checks its first four bytes
        times   STAGE2_HDR_SIZE - ($ - $$) db 0

entry:
        cli
        xor     ax, ax
        mov     ds, ax
        mov     es, ax
        mov     ss, ax
        mov     esp, STACK_TOP
        sti
        cld
        mov     di, VARS
        mov     cx, vars_end - VARS
        xor     al, al
        rep     stosb
        mov     [drive], dl
        in      al, 0x92                ; A20 on (fast gate), for the copies above 1 MiB
        or      al, 2
        and     al, 0xFE
        out     0x92, al
        call    uart_init
        ; the calls the table holds, for the first line
        xor     eax, eax
        mov     cx, [table_runs]
        mov     si, table_entries
.count: jcxz    .counted
        add     eax, [si + 12]
        add     si, 16
        dec     cx
        jmp     .count
.counted:
        mov     [total_calls], eax
        ; One untimed call of the first run: stage2 has made calls before its timed stretch
        ; starts, so QEMU has already translated SeaBIOS's read path; pass 1 must not pay it.
        mov     word [dap], 16
        mov     ax, [table_entries + 8]
        mov     [dap + 2], ax
        mov     word [dap + 4], BOUNCE & 0xF
        mov     word [dap + 6], BOUNCE >> 4
        mov     eax, [table_entries]
        mov     [dap_lba], eax
        mov     eax, [table_entries + 4]
        mov     [dap_lba + 4], eax
        mov     si, dap
        mov     dl, [drive]
        mov     ah, 0x42
        int     0x13
        jc      fail
        mov     si, msg_first
        call    puts
        mov     al, [drive]
        call    puthex8
        mov     si, msg_first2
        call    puts
        mov     eax, [total_calls]
        call    putdec
        mov     si, msg_first3
        call    puts

.pass:  inc     byte [pass]
        call    one_pass
        mov     si, msg_pass
        call    puts
        movzx   eax, byte [pass]
        call    putdec
        movzx   bx, byte [pass]
        shl     bx, 1
        mov     si, [pass_what + bx - 2]
        call    puts
        mov     eax, [calls]
        call    putdec
        mov     si, msg_pass2
        call    puts
        mov     eax, [bytes]
        call    putdec
        mov     si, msg_pass3
        call    puts
        cmp     byte [pass], PASSES
        jb      .pass

        mov     si, msg_done
        call    puts
        mov     eax, [total_calls]
        call    putdec
        mov     si, msg_crlf
        call    puts
halt:   cli
        hlt
        jmp     halt

; One pass over the table's calls (what else each call does: [pass]).
one_pass:
        xor     eax, eax
        mov     [calls], eax
        mov     [bytes], eax
        mov     dword [dest], COPY_TO
        mov     bx, table_entries
        mov     cx, [table_runs]
.run:   test    cx, cx
        jz      .done
        mov     eax, [bx]
        mov     [dap_lba], eax
        mov     eax, [bx + 4]
        mov     [dap_lba + 4], eax
        mov     ax, [bx + 8]
        mov     [count], ax
        mov     eax, [bx + 12]
        mov     [left], eax
.call:  cmp     dword [left], 0
        je      .next
        mov     word [dap], 16
        mov     ax, [count]
        mov     [dap + 2], ax
        mov     word [dap + 4], BOUNCE & 0xF
        mov     word [dap + 6], BOUNCE >> 4
        push    bx                      ; a BIOS may clobber what it does not return
        push    cx
        mov     si, dap
        mov     dl, [drive]
        mov     ah, 0x42
        int     0x13
        pop     cx
        pop     bx
        jc      fail
        inc     dword [calls]
        movzx   eax, word [count]
        mul     dword [table_bps]
        mov     [xfer], eax
        add     [bytes], eax
        cmp     byte [pass], 2
        jb      .moved
        call    pm_trip
.moved: movzx   eax, word [count]
        add     [dap_lba], eax
        adc     dword [dap_lba + 4], 0
        dec     dword [left]
        jmp     .call
.next:  add     bx, 16
        dec     cx
        jmp     .run
.done:  ret

; To 32-bit protected mode and back, as stage2's call gate (stage2/head.asm) goes the other way
; round for each call; in protected mode from pass 3 on, [xfer] bytes from the bounce buffer to
; [dest], which moves on. Keeps BX and CX.
pm_trip:
        cli
        o32 lgdt [gdt_desc]
        mov     eax, cr0
        or      al, 1
        mov     cr0, eax
        jmp     dword CODE32:.pm32
bits 32
.pm32:  mov     ax, DATA32
        mov     ds, ax
        mov     es, ax
        mov     ss, ax
        cmp     byte [pass], 3
        jb      .back
        push    ecx
        mov     esi, BOUNCE
        mov     edi, [dest]
        mov     ecx, [xfer]
        shr     ecx, 5                  ; whole sectors: a multiple of 32 bytes
.copy:
%assign k 0
%rep 4
        mov     eax, [esi + k]
        mov     edx, [esi + k + 4]
        mov     [edi + k], eax
        mov     [edi + k + 4], edx
%assign k k + 8
%endrep
        add     esi, 32
        add     edi, 32
        dec     ecx
        jnz     .copy
        mov     [dest], edi
        pop     ecx
.back:  jmp     CODE16:.pm16
bits 16
.pm16:  mov     ax, DATA16
        mov     ds, ax
        mov     es, ax
        mov     ss, ax
        mov     eax, cr0
        and     al, 0xFE
        mov     cr0, eax
        jmp     0:.rm
.rm:    xor     ax, ax
        mov     ds, ax
        mov     es, ax
        mov     ss, ax
        sti
        ret

fail:   mov     [status], ah
        mov     si, msg_fail
        call    puts
        mov     eax, [dap_lba]
        call    putdec
        mov     si, msg_fail2
        call    puts
        mov     al, [status]
        call    puthex8
        mov     si, msg_crlf
        call    puts
        jmp     halt

; COM1 at 115200 8N1 with FIFOs, as stage2's console sets it.
uart_init:
        mov     dx, UART_COM1 + UART_LCR
        mov     al, UART_LCR_DLAB
        out     dx, al
        mov     dx, UART_COM1 + UART_DATA
        mov     al, UART_CLOCK / 115200
        out     dx, al
        mov     dx, UART_COM1 + UART_IER
        xor     al, al
        out     dx, al
        mov     dx, UART_COM1 + UART_LCR
        mov     al, UART_LCR_8N1
        out     dx, al
        mov     dx, UART_COM1 + UART_FCR
        mov     al, UART_FCR_FIFO_CLEAR
        out     dx, al
        mov     dx, UART_COM1 + UART_MCR
        mov     al, UART_MCR_DTR_RTS
        out     dx, al
        ret

; One character to COM1 and the BIOS teletype; every register kept.
putc:   pushad
        mov     bl, al
        mov     dx, UART_COM1 + UART_LSR
        mov     cx, 0xFFFF
.wait:  in      al, dx
        test    al, UART_LSR_THR_EMPTY
        loopz   .wait
        mov     dx, UART_COM1 + UART_DATA
        mov     al, bl
        out     dx, al
        mov     ah, 0x0E
        xor     bh, bh
        int     0x10
        popad
        ret

; The NUL-terminated string at DS:SI.
puts:   lodsb
        test    al, al
        jz      .end
        call    putc
        jmp     puts
.end:   ret

; AL as two hex digits.
puthex8:
        push    ax
        shr     al, 4
        call    .digit
        pop     ax
        and     al, 0x0F
.digit: add     al, '0'
        cmp     al, '9'
        jbe     .out
        add     al, 'a' - '0' - 10
.out:   jmp     putc

; EAX in decimal.
putdec: xor     cx, cx
        mov     ebx, 10
.div:   xor     edx, edx
        div     ebx
        push    dx
        inc     cx
        test    eax, eax
        jnz     .div
.put:   pop     ax
        add     al, '0'
        call    putc
        loop    .put
        ret

msg_first:  db 13, 10, "anysector floor reader (drive 0x", 0
msg_first2: db "): ", 0
msg_first3: db " AH=42h calls of the kernel and initrd, 4 passes", 13, 10, 0
msg_pass:   db "floor pass ", 0
msg_pass2:  db " int 13h AH=42h calls, ", 0
msg_pass3:  db " bytes read", 13, 10, 0
msg_done:   db "anysector floor reader: done, 4 passes of ", 0
msg_fail:   db "anysector floor reader: AH=42h failed at LBA ", 0
msg_fail2:  db ", BIOS error 0x", 0
msg_crlf:   db 13, 10, 0
what1:      db " (the calls): ", 0
what2:      db " (and a switch to protected mode and back after each): ", 0
what3:      db " (and a copy into fresh memory from 1 MiB): ", 0
what4:      db " (the same copies again, into that memory): ", 0
pass_what:  dw what1, what2, what3, what4

; The "accessed" bits are preset, as in stage2/head.asm: the CPU would otherwise write them
; into this page, which holds code.
align 8
gdt:        dq 0
            dq 0x00CF9B000000FFFF       ; 0x08 32-bit code, flat 4 GiB
            dq 0x00CF93000000FFFF       ; 0x10 32-bit data, flat 4 GiB
            dq 0x00009B000000FFFF       ; 0x18 16-bit code, base 0, 64 KiB
            dq 0x000093000000FFFF       ; 0x20 16-bit data, base 0, 64 KiB
gdt_end:
gdt_desc:   dw gdt_end - gdt - 1
            dd gdt

absolute VARS
drive:       resb 1
status:      resb 1
pass:        resb 1
alignb 2
count:       resw 1
total_calls: resd 1
calls:       resd 1
left:        resd 1
bytes:       resd 1
xfer:        resd 1
dest:        resd 1
alignb 16
dap:         resb 8
dap_lba:     resq 1
vars_end:

section .text

; Last in the image: the bench fills the header and appends the runs.
align 16
table:       db "ASFLOOR1"
table_bps:   dd 0
table_runs:  dd 0
table_entries:
