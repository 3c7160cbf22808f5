; SPDX-License-Identifier: BSD-2-Clause
; anysector stage1: the MBR boot code (bytes 0..439 of LBA 0).
;
; Loads stage2 from the byte offset and length the installer patched into the block at
; STAGE1_MAGIC_OFF, in units of the drive's own logical sector (AH=48h; 512 when that fails or
; answers nonsense), and enters it at 0000:8000 with DL = drive and CX = bytes per sector used.
;
; Each AH=42h transfer moves 32 KiB (64 sectors of 512, 8 of 4096: within SeaBIOS's 64 KiB and
; old BIOSes' 127 sectors) into a 32 KiB-aligned buffer, so none crosses a 64 KiB boundary.
; Without int 13h extensions it falls back to CHS (AH=08h/02h) one sector at a time.
;
; Errors print "E<digit>" on screen and COM1 and halt (docs/GUIDE.md "When a boot fails"
; lists them):
;   E1 stage2 length is 0 (not installed) or larger than STAGE2_MAX_SIZE
;   E2 stage2 offset is not a whole number of sectors
;   E3 no int 13h extensions and no usable CHS geometry, or stage2 lies beyond CHS reach
;   E4 disk read failed after reset and retries
;   E5 the bytes loaded are not a stage2 (bytes 8..11 are not "ANYS" of its magic "ANYSECT2")
;
; Some BIOSes clobber registers in int 13h (Hyper-V: AX after AH=42h): every call goes through
; int13, which preserves every register but the BX, CX and DH a call returns.

%include "bootinfo.inc"
%include "uart.inc"                     ; common/uart.h's register names

bits 16
cpu 386
org 0x7C00

; BP points 4 bytes before the patch block, so the DAP, the patched fields and the variables are
; all [bp+disp8]. The disk address packet sits at 0x1A0 and its LBA field *is* the patched stage2
; offset, converted to sectors in place; the variables use the in-memory copy of the disk
; signature and partition table (stage1 never writes the disk; stage2 reads LBA 0 afresh).
; Registers that live across int 13h calls: DL = drive, SI = DAP pointer (0 in CHS mode),
; DI = sectors per transfer.
BASE            equ 0x7C00 + STAGE1_MAGIC_OFF - 4
DAP             equ 0x00                ; 16 bytes: size, 0, count, offset, segment, LBA
DAP_CNT         equ DAP + 2
DAP_OFF         equ DAP + 4
DAP_SEG         equ DAP + 6
DAP_LBA         equ DAP + 8
S2_OFFSET       equ STAGE1_S2_OFFSET_OFF - STAGE1_MAGIC_OFF + 4
S2_LENGTH       equ STAGE1_S2_LENGTH_OFF - STAGE1_MAGIC_OFF + 4
VARS            equ STAGE1_MAX_CODE - STAGE1_MAGIC_OFF + 4
TRIES           equ VARS + 0x00
BPS             equ VARS + 0x02         ; bytes per sector (word)
REM             equ VARS + 0x06         ; sectors still to read (signed word: <= 960)
SPT             equ VARS + 0x08         ; CHS: sectors per track (byte)
HPC_SPT         equ VARS + 0x0A         ; CHS: heads * sectors per track (word)
MAXCYL          equ VARS + 0x0C         ; CHS: last cylinder (word)
EDD             equ VARS + 0x10         ; AH=48h result buffer, its size word first
EDD_BPS         equ EDD + 0x18
EDD_BUF_SIZE    equ 0x1E                ; SeaBIOS fails below 0x1A and returns 0x1A or 0x1E

RETRIES         equ 4                   ; attempts per transfer, with AH=00h reset between
CHUNK_BYTES     equ 0x8000              ; per AH=42h call: <= 127 sectors of >= 512 bytes, and a
                                        ; 32 KiB-aligned buffer never crosses 64 KiB

%substr MAGIC_LO_STR STAGE2_MAGIC 1,4
MAGIC_LO        equ MAGIC_LO_STR

; Bytes MBR_TIMESTAMP_OFF.. belong to the disk (Windows keeps a timestamp there) and the
; installer keeps them: the code jumps over them. The TIMES fails to assemble if the code before
; the hole has grown past it.
%macro SKIP_TIMESTAMP 0
        jmp     short %%after
        times   MBR_TIMESTAMP_OFF - ($ - $$) db 0
        times   MBR_TIMESTAMP_LEN db 0
%%after:
%endmacro

start:
        jmp     0:fix_cs                ; some BIOSes enter at 07C0:0000
fix_cs:
        cli
        xor     ax, ax
        mov     ss, ax
        mov     sp, 0x7C00
        mov     ds, ax
        mov     es, ax
        sti
        mov     bp, BASE

        ; A drive number outside the hard disk range is a BIOS bug: take the first disk.
        mov     al, dl
        and     al, 0xF0
        cmp     al, 0x80
        je      .dl_ok
        mov     dl, 0x80
.dl_ok:
%ifdef TEST_FORCE_CHS
        jmp     chs_setup               ; tests/stage1 only: exercise the CHS path under SeaBIOS
%endif
        mov     ah, 0x41
        mov     bx, 0x55AA
        call    int13
        jc      chs_setup
        cmp     bx, 0xAA55
        jne     chs_setup
        test    cl, 1                   ; packet (AH=42h) access supported
        jz      chs_setup

        mov     word [bp+EDD], EDD_BUF_SIZE
        mov     ah, 0x48
        lea     si, [bp+EDD]
        call    int13
        mov     si, bp                  ; LBA mode: DS:SI = the DAP
        jc      default_bps
        ; Accept a power of two 512..4096; anything else means 512.
        mov     ax, [bp+EDD_BPS]
        test    ax, 0x1E00
        jz      default_bps
        mov     bx, ax
        dec     bx
        test    ax, bx
        jz      have_bps
        jmp     short default_bps

error:
        mov     [msg+1], al
        ; COM1: 115200 8N1 (divisor 1), FIFO on so four bytes need no waiting. DX walks the
        ; registers DATA, IER, FCR, LCR one port up at a time (asserted below); only its low
        ; byte changes.
%if UART_IER != UART_DATA + 1 || UART_FCR != UART_IER + 1 || UART_LCR != UART_FCR + 1
%error "stage1's UART setup steps DX through DATA, IER, FCR, LCR one port at a time"
%endif
%if (UART_COM1 + UART_DATA) >> 8 != (UART_COM1 + UART_LCR) >> 8
%error "stage1's UART setup changes only DL between DATA and LCR"
%endif
        mov     dx, UART_COM1 + UART_LCR
        mov     al, UART_LCR_DLAB
        out     dx, al
        mov     dl, (UART_COM1 + UART_DATA) & 0xFF
        mov     al, UART_CLOCK / 115200 ; divisor low byte (DLAB)
        out     dx, al
        inc     dx                      ; IER: divisor high byte
        dec     ax
        out     dx, al
        inc     dx                      ; FCR
        mov     al, UART_FCR_FIFO_CLEAR
        out     dx, al
        inc     dx                      ; LCR
        mov     al, UART_LCR_8N1
        out     dx, al
        mov     si, msg
        cld
.next:
        lodsb
        mov     dl, (UART_COM1 + UART_DATA) & 0xFF
        out     dx, al
        mov     ah, 0x0E
        xor     bx, bx                  ; page 0
        int     0x10
        cmp     al, 10
        jne     .next
halt:
        hlt
        jmp     halt

msg:    db      "E?", 13, 10

; Each stub loads its digit; the 0x3D byte turns the next stub's "mov al" into the immediate of a
; harmless "cmp ax, imm16", so control falls through with the first digit kept.
err3:   mov     al, '3'
        db      0x3D
err4:   mov     al, '4'
        db      0x3D
err5:   mov     al, '5'
        db      0x3D
err2:   mov     al, '2'
        db      0x3D
err1:   mov     al, '1'
        jmp     short error

chs_setup:
        mov     ah, 0x08
        xor     di, di                  ; ES:DI = 0 works around BIOSes that write there
        call    int13
        jc      err3
        mov     ax, cx
        and     ax, 0x3F                ; sectors per track
        jz      err3
        mov     [bp+SPT], al
        inc     dh                      ; heads = last head + 1 (256 wraps to 0, and the
        mul     dh                      ; overflow guard below then refuses every LBA)
        mov     [bp+HPC_SPT], ax
        shr     cl, 6
        xchg    cl, ch                  ; CX = last cylinder (10 bits)
        mov     [bp+MAXCYL], cx
        xor     si, si                  ; CHS mode

default_bps:
        mov     ax, 0x200
have_bps:
        mov     [bp+BPS], ax
        bsf     cx, ax                  ; CL = log2(bytes per sector)
        dec     ax
        test    [bp+S2_OFFSET], ax
        jnz     err2
        mov     di, CHUNK_BYTES
        shr     di, cl                  ; DI = sectors per AH=42h transfer

        mov     eax, [bp+S2_LENGTH]
        dec     eax                     ; length 0 wraps and fails the range check
        SKIP_TIMESTAMP
        cmp     eax, STAGE2_MAX_SIZE - 1
        ja      err1
        shr     eax, cl
        inc     ax
        mov     [bp+REM], ax

        mov     ebx, [bp+S2_OFFSET+4]   ; byte offset -> LBA, in place: it is the DAP's LBA
        shrd    [bp+S2_OFFSET], ebx, cl
        shr     dword [bp+S2_OFFSET+4], cl
        mov     dword [bp+DAP_OFF], (STAGE2_LOAD_ADDR >> 4) << 16

; Whole chunks only: the last one may read up to 32 KiB - 1 sector past stage2's end, which
; still ends at or below 0x80000 (STAGE2_MAX_SIZE is a multiple of CHUNK_BYTES) and never
; leaves the disk (partitions and the backup GPT follow stage2).
read_loop:
        mov     byte [bp+TRIES], RETRIES

.attempt:
        ; After a failure the DAP count is undefined: set it again every time.
        mov     [bp+DAP_CNT], di
        mov     ah, 0x42
        test    si, si
        jnz     .call

        ; CHS: one sector per call (never across a track), 16-bit divisions, the first guarded
        ; against overflow.
        mov     di, 1
        push    dx
        mov     ax, [bp+DAP_LBA]
        mov     dx, [bp+DAP_LBA+2]
        cmp     dx, [bp+HPC_SPT]
        jae     err3
        div     word [bp+HPC_SPT]       ; AX = cylinder, DX = head * spt + sector - 1
        cmp     ax, [bp+MAXCYL]
        ja      err3
        xchg    ax, dx
        div     byte [bp+SPT]           ; AL = head, AH = sector - 1
        mov     cl, ah
        inc     cx
        mov     ch, dl
        shl     dh, 6
        or      cl, dh
        pop     dx
        mov     dh, al
        mov     es, [bp+DAP_SEG]
        xor     bx, bx
        mov     ax, 0x0201
.call:
        call    int13
        jnc     .done
        mov     ah, 0x00                ; reset, then try again
        call    int13
        dec     byte [bp+TRIES]
        jnz     .attempt
        jmp     err4

.done:
        add     [bp+DAP_LBA], di        ; LBAs stay below 2^48: bytes 6..7 never carry
        adc     dword [bp+DAP_LBA+2], 0
        mov     ax, di
        imul    ax, [bp+BPS]
        shr     ax, 4
        add     [bp+DAP_SEG], ax
        sub     [bp+REM], di
        jg      read_loop

        cmp     dword [STAGE2_LOAD_ADDR + STAGE2_MAGIC_OFF], MAGIC_LO
        jne     err5
        mov     cx, [bp+BPS]
        jmp     STAGE2_LOAD_ADDR        ; CS is 0 since fix_cs

; int 13h with every register saved except what calls return in BX, CX and DH; DL (the drive)
; survives. The flags (CF) come back as the BIOS left them. Only 16-bit registers carry state
; across calls, so pusha is enough.
int13:
        pusha
        push    ds
        push    es
        int     0x13
        pop     es
        pop     ds
        mov     bp, sp                  ; the pusha frame: DI SI BP SP BX DX CX AX
        mov     [bp+8], bx
        mov     [bp+11], dh
        mov     [bp+12], cx
        popa
        ret

code_end:
        times   STAGE1_MAGIC_OFF - 4 - ($ - $$) db 0
        dw      0x10, 0                 ; DAP size and count; the rest overlays the patch block

; ---- the patch block: offsets come from common/bootinfo.h (bootinfo.inc is generated from
; it); each TIMES fails to assemble if the code above grew into the block.
        times   STAGE1_MAGIC_OFF - ($ - $$) db 0
        db      STAGE1_MAGIC
        times   STAGE1_S2_OFFSET_OFF - ($ - $$) db 0
        dq      0
        times   STAGE1_S2_LENGTH_OFF - ($ - $$) db 0
        dd      0
        times   STAGE1_VERSION_OFF - ($ - $$) db 0
        dw      STAGE1_VERSION
        times   STAGE1_FLAGS_OFF - ($ - $$) db 0
        dw      0
        times   STAGE1_MAX_CODE - ($ - $$) db 0
        ; disk signature, partition table: the installer keeps the disk's own
        times   510 - ($ - $$) db 0
        dw      0xAA55
