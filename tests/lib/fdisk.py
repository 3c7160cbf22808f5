# SPDX-License-Identifier: BSD-2-Clause
"""util-linux's libfdisk through ctypes: a disk label of any kind libfdisk writes, made by
libfdisk itself (fdisk's scripted interface cannot make a whole-disk BSD disklabel: its 'b'
menu edits one inside a DOS partition, and sfdisk writes only dos, gpt, sun and sgi), and the
label libfdisk reads on a file. No code of ours parses or writes a label here."""
import ctypes
import ctypes.util

_ASK_YESNO = 6          # enum fdisk_asktype: FDISK_ASKTYPE_YESNO
_ASK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_lib = None


def _libfdisk():
    global _lib
    if _lib is None:
        name = ctypes.util.find_library("fdisk") or "libfdisk.so.1"
        lib = ctypes.CDLL(name)
        p, s, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        for fn, args, res in (("fdisk_new_context", [], p), ("fdisk_unref_context", [p], None),
                              ("fdisk_set_ask", [p, _ASK, p], i),
                              ("fdisk_ask_get_type", [p], i),
                              ("fdisk_ask_yesno_set_result", [p, i], i),
                              ("fdisk_assign_device", [p, s, i], i),
                              ("fdisk_deassign_device", [p, i], i),
                              ("fdisk_create_disklabel", [p, s], i),
                              ("fdisk_write_disklabel", [p], i),
                              ("fdisk_get_label", [p, s], p),
                              ("fdisk_has_label", [p], i),
                              ("fdisk_label_get_name", [p], s)):
            f = getattr(lib, fn)
            f.argtypes, f.restype = args, res
        _lib = lib
    return _lib


@_ASK
def _yes(cxt, ask, data):
    """Answers every question libfdisk asks ("Do you want to create a BSD disklabel?") yes."""
    lib = _libfdisk()
    if lib.fdisk_ask_get_type(ask) == _ASK_YESNO:
        return lib.fdisk_ask_yesno_set_result(ask, 1)
    return 0


def create_label(path, name):
    """Writes a new, empty disk label of kind name ("bsd", "dos", ...) on the file, as fdisk's
    create-a-label commands do. Raises RuntimeError with libfdisk's return code on failure."""
    lib = _libfdisk()
    cxt = lib.fdisk_new_context()
    try:
        lib.fdisk_set_ask(cxt, _yes, None)
        for step, rc in (("assign", lambda: lib.fdisk_assign_device(cxt, path.encode(), 0)),
                         ("create", lambda: lib.fdisk_create_disklabel(cxt, name.encode())),
                         ("write", lambda: lib.fdisk_write_disklabel(cxt)),
                         ("close", lambda: lib.fdisk_deassign_device(cxt, 1))):
            r = rc()
            if r:
                raise RuntimeError("libfdisk could not %s a %s label on %s (%d)"
                                   % (step, name, path, r))
    finally:
        lib.fdisk_unref_context(cxt)


def label(path):
    """The kind of label libfdisk reads on the file ("bsd", "gpt", ...), None when none."""
    lib = _libfdisk()
    cxt = lib.fdisk_new_context()
    try:
        if lib.fdisk_assign_device(cxt, path.encode(), 1):
            raise RuntimeError("libfdisk cannot open " + path)
        name = None
        if lib.fdisk_has_label(cxt):
            name = lib.fdisk_label_get_name(lib.fdisk_get_label(cxt, None)).decode()
        lib.fdisk_deassign_device(cxt, 1)
        return name
    finally:
        lib.fdisk_unref_context(cxt)
