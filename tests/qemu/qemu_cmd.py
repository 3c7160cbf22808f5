"""QEMU command lines: firmware, the disk on its front-end with its sector sizes, serial and
debug ports (docs/FIRMWARE.md "SeaBIOS", "OVMF")."""
import os
import shutil

QEMU = "qemu-system-x86_64"
SEABIOS = "/usr/share/seabios/bios-256k.bin"   # bios.bin has no NVMe driver
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
DEBUG_EXIT = "isa-debug-exit,iobase=0xf4,iosize=0x04"

# Exit statuses that mean something to the runner.
EXIT_PAYLOAD_REPORTED = 33   # BIOS payload wrote 0x10 to isa-debug-exit
EXIT_PAYLOAD_ERROR = 35      # BIOS payload wrote 0x11


def missing_files():
    return [p for p in (SEABIOS, OVMF_CODE, OVMF_VARS) if not os.path.exists(p)]


def disk_args(frontend, image, logical, physical, snapshot=True, blkdebug=None):
    """blkdebug: a rules file (docs/FIRMWARE.md "Fault injection") that makes chosen reads fail."""
    source = f"blkdebug:{blkdebug}:{image}" if blkdebug else image
    drive = f"if=none,id=disk0,format=raw,file={source}"
    if snapshot:
        drive += ",snapshot=on"    # the image stays as built; OVMF may rewrite a GPT
    sizes = f"logical_block_size={logical},physical_block_size={physical}"
    if frontend == "ide":
        if logical != 512:
            raise ValueError("QEMU's IDE disks cannot have 4096-byte logical sectors")
        dev = ["-device", f"ide-hd,drive=disk0,bus=ide.0,unit=0,{sizes},bootindex=1"]
    elif frontend == "virtio-blk":
        dev = ["-device", f"virtio-blk-pci,drive=disk0,{sizes},bootindex=1"]
    elif frontend == "virtio-scsi":
        dev = ["-device", "virtio-scsi-pci,id=scsi0",
               "-device", f"scsi-hd,bus=scsi0.0,drive=disk0,{sizes},bootindex=1"]
    elif frontend == "nvme":
        dev = ["-device", f"nvme,drive=disk0,serial=anysector0,{sizes},bootindex=1"]
    else:
        raise ValueError(f"unknown front-end {frontend}")
    return ["-drive", drive] + dev


def firmware_args(firmware, vars_copy, debugcon_log):
    """vars_copy: where this run's private copy of the OVMF variable store goes."""
    if firmware == "seabios":
        # reboot-timeout=0: after "No bootable device." SeaBIOS resets at once, and -no-reboot
        # turns the reset into QEMU's exit, so a disk SeaBIOS cannot boot fails in a second.
        args = ["-bios", SEABIOS, "-boot", "strict=on,reboot-timeout=0"]
    elif firmware == "ovmf":
        shutil.copyfile(OVMF_VARS, vars_copy)
        args = ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}"]
    else:
        raise ValueError(f"unknown firmware {firmware}")
    if debugcon_log:
        # SeaBIOS's own log (and OVMF's, on debug builds) goes to port 0x402.
        args += ["-chardev", f"file,id=dbg,path={debugcon_log}",
                 "-device", "isa-debugcon,iobase=0x402,chardev=dbg"]
    return args


def base_args(serial, memory_mb=256):
    """serial: a log file path, or "stdio" for the terminal (make run)."""
    ser = ["-serial", "mon:stdio"] if serial == "stdio" else \
        ["-chardev", f"file,id=ser0,path={serial}", "-serial", "chardev:ser0"]
    return [QEMU, "-machine", "pc", "-accel", "tcg", "-m", str(memory_mb), "-nodefaults",
            "-vga", "std", "-display", "none", "-no-reboot", "-nic", "none",
            "-device", DEBUG_EXIT] + ser + (["-monitor", "none"] if serial != "stdio" else [])


# After its first write (OVMF rewriting the primary GPT from the backup), this many reads pass
# before the sector fails again: OVMF's restore reads the backup array, then checks the new
# primary header and array and reads the array for its partitions (EDK2 PartitionDxe Gpt.c).
REPAIR_READS = 4


def blkdebug_rules(sector, kind, beyond):
    """QEMU blkdebug rules: reads of the 512-byte unit `sector` of the image file fail (EIO)
    - once: the first read only;
    - always: every read (and every write QEMU has to read it for);
    - after-repair: every read, except the REPAIR_READS reads that follow the first write, so
      OVMF can repair the primary GPT and boot while the loader still meets the error. The
      disk must be writable (no snapshot=on: its overlay would answer the reads itself).
    `beyond` is a sector past the image's end: the placeholder rules that keep blkdebug's
    active error rule from lingering between states (it stays active until another
    inject-error rule of the same event is processed)."""
    def inject(at, state=None, once=False):
        text = f'[inject-error]\nevent = "read_aio"\nerrno = "5"\nsector = "{at}"\n'
        text += f'once = "{"on" if once else "off"}"\n'
        if state:
            text += f'iotype = "read"\nstate = "{state}"\n'
        return text + "\n"

    def set_state(event, state, new):
        return f'[set-state]\nevent = "{event}"\nstate = "{state}"\nnew_state = "{new}"\n\n'

    if kind != "after-repair":
        return inject(sector, once=kind == "once")
    rules = inject(sector, 1) + set_state("write_aio", 1, 2)
    for k in range(2, 2 + REPAIR_READS):
        rules += inject(beyond, k) + set_state("read_aio", k, k + 1)
    return rules + inject(sector, 2 + REPAIR_READS)


def case_command(case, image, serial_log, debugcon_log, vars_copy, blkdebug=None, snapshot=True):
    mem = 512 if case.payload == "linux" else 256
    return (base_args(serial_log, mem) + firmware_args(case.firmware, vars_copy, debugcon_log)
            + disk_args(case.frontend, image, case.logical, case.physical, snapshot, blkdebug))
