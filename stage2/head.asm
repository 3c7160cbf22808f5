; SPDX-License-Identifier: BSD-2-Clause
; stage2's first bytes and everything that runs in (or returns to) real mode: the header of
; common/bootinfo.h, the real-mode entry from stage1, the switch to 32-bit protected mode, the
; real-mode call gate bios_call() and the jump into a Linux kernel's real-mode setup.
;
; All of it lives in .head, which linker.ld places first at 0x8000 and keeps below 64 KiB, so
; real-mode code can run with CS = 0 and reach its data with DS = 0. The stack (linker.ld
; __stack_top) is below 0x8000, so SS:SP = 0:ESP holds in both modes.

%include "bootinfo.inc"

; Leaves 32-bit protected mode for real mode at %1 (a label in segment 0): through the 16-bit
; protected-mode segment first, because CR0.PE may only be cleared from 16-bit code with 64 KiB
; limits loaded, then a far jump so CS holds a real-mode value. Leaves NASM in "bits 16".
%macro pm32_to_real_mode 1
        jmp     CODE16:%%pm16
bits 16
%%pm16:
        mov     ax, DATA16
        mov     ds, ax
        mov     es, ax
        mov     fs, ax
        mov     gs, ax
        mov     ss, ax
        mov     eax, cr0
        and     al, 0xFE
        mov     cr0, eax
        jmp     0:%1
%endmacro

bits 16
section .head progbits alloc exec write align=16

extern stage2_unpack
extern __bss_start, __bss_end, __stack_top

CODE32          equ 0x08
DATA32          equ 0x10
CODE16          equ 0x18
DATA16          equ 0x20

global _start
_start:
        jmp     short entry16
        times   STAGE2_MAGIC_OFF - ($ - $$) db 0
        db      STAGE2_MAGIC
        times   STAGE2_HDR_VERSION_OFF - ($ - $$) db 0
        dd      STAGE2_HDR_VERSION
        times   STAGE2_LENGTH_OFF - ($ - $$) db 0
        dd      0                       ; image length: written by the seal program
        times   STAGE2_CRC_OFF - ($ - $$) db 0
        dd      0                       ; CRC32: written by the seal program (and the installer)
        times   STAGE2_KIND_OFF - ($ - $$) db 0
        dd      0                       ; boot partition identity: the installer's
        times   STAGE2_FLAGS_OFF - ($ - $$) db 0
%ifdef ANYSECTOR_GAP_BUILD
        dd      STAGE2_FLAG_GAP_BUILD   ; the legacy-gap build (common/features.h)
%else
        dd      0
%endif
        times   STAGE2_CONFIG_PATH_OFF - ($ - $$) db 0
        db      "/anysector.cfg", 0
        times   STAGE2_HDR_SIZE - ($ - $$) db 0

; Entered from stage1 at 0000:8000: DL = BIOS drive, CX = bytes per sector stage1 used.
entry16:
        cli
        xor     ax, ax
        mov     ds, ax
        mov     es, ax
        mov     ss, ax
        mov     sp, __stack_top
        cld
        movzx   ebx, dl
        movzx   esi, cx
        o32 lgdt [gdt_desc]
        mov     eax, cr0
        or      al, 1
        mov     cr0, eax
        jmp     dword CODE32:entry32

bits 32
entry32:
        mov     ax, DATA32
        mov     ds, ax
        mov     es, ax
        mov     fs, ax
        mov     gs, ax
        mov     ss, ax
        mov     esp, __stack_top
        mov     edi, __bss_start
        mov     ecx, __bss_end
        sub     ecx, edi
        xor     eax, eax
        rep     stosb
        push    esi                     ; stage1's bytes per sector
        push    ebx                     ; BIOS drive
        call    stage2_unpack
.halt:
        cli
        hlt
        jmp     .halt

; void bios_call(uint8_t intno, const struct biosregs *in, struct biosregs *out)
;
; Runs "int intno" in real mode with every register from *in and stores every register the
; BIOS left in *out (stage2/bioscall.h). Instead of patching an "int" instruction (the image
; must stay as sealed: it checks its own CRC) the vector is called through the IVT with the
; frame an "int" would have pushed: FLAGS, CS, IP of rm_return.
;
; Stack built below the caller's frame, lowest address first:
;   44 bytes of registers in pushad / pop gs,fs,es,ds / popfd order (struct biosregs)
;   4 bytes: the vector (IP, CS) for retf
;   6 bytes: IP = rm_return, CS = 0, FLAGS for the handler's iret
;   4 bytes: out
global bios_call
bios_call:
        push    ebp
        push    ebx
        push    esi
        push    edi
        movzx   eax, byte [esp+20]
        mov     esi, [esp+24]
        push    dword [esp+28]
        push    word [esi+40]           ; FLAGS for the iret frame
        push    word 0
        push    word rm_return
        push    dword [eax*4]           ; IVT entry: offset, segment
        sub     esp, 44
        mov     edi, esp
        mov     ecx, 11
        rep     movsd
        pm32_to_real_mode .rm

.rm:
        xor     ax, ax
        mov     ds, ax
        mov     es, ax
        mov     fs, ax
        mov     gs, ax
        mov     ss, ax
        popad
        pop     gs
        pop     fs
        pop     es
        pop     ds
        popfd
        cli                             ; as "int" does: the handler starts with IF = 0, and
                                        ; its iret restores the caller's FLAGS from the frame
        retf                            ; into the handler; its iret comes back below

rm_return:
        pushfd
        push    ds
        push    es
        push    fs
        push    gs
        pushad
        cli
        cld
        xor     ax, ax
        mov     ds, ax
        o32 lgdt [gdt_desc]             ; a BIOS may have loaded its own (int 15h AH=87h)
        mov     eax, cr0
        or      al, 1
        mov     cr0, eax
        jmp     dword CODE32:.pm32

bits 32
.pm32:
        mov     ax, DATA32
        mov     ds, ax
        mov     es, ax
        mov     fs, ax
        mov     gs, ax
        mov     ss, ax
        mov     esi, esp
        mov     edi, [esp+44]
        test    edi, edi
        jz      .no_out
        mov     ecx, 11
        rep     movsd
.no_out:
        add     esp, 48
        pop     edi
        pop     esi
        pop     ebx
        pop     ebp
        ret

; void linux_enter_real_mode(uint16_t seg, uint16_t sp) -- never returns
;
; The 16-bit Linux boot protocol entry: real mode, interrupts off, DS = ES = FS = GS = SS = seg,
; SP = sp, jump to seg+0x20:0.
global linux_enter_real_mode
linux_enter_real_mode:
        cli
        movzx   ebx, word [esp+4]
        movzx   ecx, word [esp+8]
        pm32_to_real_mode .rm

.rm:
        mov     ds, bx
        mov     es, bx
        mov     fs, bx
        mov     gs, bx
        mov     ss, bx
        mov     esp, ecx
        add     bx, 0x20
        push    bx
        push    word 0
        retf

; void chain_enter(uint32_t drive, uint32_t bytes, uint32_t si, uint32_t src_seg) -- never returns
;
; Starts a boot record (stage2/chain.c): it waits at src_seg:0; chain_copy, which lies in the
; body, moves it to 0000:7C00, because a 4 KiB record there overwrites this head at 0x8000.
bits 32
global chain_enter
chain_enter:
        cli
        mov     edx, [esp+4]
        mov     ecx, [esp+8]
        mov     ebp, [esp+12]
        mov     esi, [esp+16]
        mov     edi, chain_copy
        shr     edi, 4                  ; chain_copy's segment
        mov     ebx, chain_copy
        and     ebx, 15                 ; and offset
        pm32_to_real_mode .rm

.rm:
        xor     ax, ax
        mov     ds, ax
        mov     es, ax
        mov     ss, ax
        mov     sp, 0x7C00
        push    di
        push    bx
        retf

; The "accessed" bits are preset: the CPU would otherwise set them in this table when it loads
; a selector, changing the image's bytes under its own CRC.
align 8
gdt:
        dq      0
        dq      0x00CF9B000000FFFF      ; 0x08 32-bit code, flat 4 GiB
        dq      0x00CF93000000FFFF      ; 0x10 32-bit data, flat 4 GiB
        dq      0x00009B000000FFFF      ; 0x18 16-bit code, base 0, 64 KiB
        dq      0x000093000000FFFF      ; 0x20 16-bit data, base 0, 64 KiB
gdt_end:
gdt_desc:
        dw      gdt_end - gdt - 1
        dd      gdt

; Real-mode code in the body (stage2's .text, at 0x20000 and up): entered with CS:IP = its own
; address, DS = ES = SS = 0, DL = drive, CX = bytes, SI = the source segment, BP = the entry.
section .text.chain progbits alloc exec
bits 16
chain_copy:
        mov     ds, si
        xor     si, si
        mov     di, 0x7C00
        cld
        rep     movsb
        xor     ax, ax
        mov     ds, ax
        mov     si, bp
        sti
        jmp     0:0x7C00
