# SPDX-License-Identifier: BSD-2-Clause
"""The contracts between the installer and the boot stages, as common/bootinfo.h and
common/mbr.h define them: STAGE1_* (the patch block in LBA 0), STAGE2_* (stage2's header) and
MBR_* (the partition record). The values come from $BUILD/tests/lib/bootinfo_h.py, which
tests/lib/lib.mk generates from those headers; `make` (or the suite's make target) builds it."""
import importlib.util

from lib import paths

GENERATED = paths.build("tests", "lib", "bootinfo_h.py")


def _load():
    spec = importlib.util.spec_from_file_location("bootinfo_h", GENERATED)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        raise ImportError(f"{GENERATED} is not built: run `make {GENERATED}` (tests/lib/lib.mk "
                          "generates it from common/bootinfo.h)") from None
    return {k: v for k, v in vars(module).items() if k.isupper()}


globals().update(_load())
