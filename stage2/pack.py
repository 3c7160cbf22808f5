#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Packs stage2: the uncompressed head, then the body compressed with LZMA (stage2/unlzma.c
decodes it). Before compressing, the target of every CALL/JMP rel32 (E8/E9) in the body's text
is made absolute (an offset in the text), so the many calls of one function read alike: an LZMA
decoder with this filter (about 1 KiB of code) packs stage2's body about 2.5 KiB smaller than
zopfli's DEFLATE with its decoder. The result is sealed by stage2/seal afterwards.

The filter keeps the byte stream's opcode positions (it never changes an E8/E9 byte, and skips
the four bytes it rewrites), so the decoder finds the same positions; every value is mapped
through a permutation of the 32-bit numbers, so every value comes back (docs/DESIGN.md
"stage2's size budget").

usage: pack.py HEAD BODY OUT ROOM TEXT
ROOM: bytes from the load address to the body's link address; the packed image must fit there,
because the head unpacks the body over the memory after it.
TEXT: bytes of code at the start of the body (the filter's range)."""
import lzma
import struct
import sys

# lc=3 lp=0 pb=0: byte-aligned contexts suit x86 code and text (measured smallest on stage2).
LC, LP, PB = 3, 0, 0
PROPS = (PB * 5 + LP) * 9 + LC


def x86_filter(body, text, decode=False):
    """E8/E9 rel32 -> the target's offset, for every E8/E9 whose four bytes fit in the text;
    decode=True is the inverse (stage2/unlzma.c x86_unfilter)."""
    b = bytearray(body)
    i, m = 0, 1 << 32
    while i + 5 <= text:
        if b[i] & 0xFE != 0xE8:
            i += 1
            continue
        v, at = struct.unpack_from("<I", b, i + 1)[0], i + 5
        if not decode:
            if (v + at) % m < text:
                v = (v + at) % m
            elif text - at <= v < text:
                v = (v - text) % m
        elif v < text:
            v = (v - at) % m
        elif v >= m - at:
            v = (v + text) % m
        struct.pack_into("<I", b, i + 1, v)
        i += 5
    return bytes(b)


# The encoder's match finder and nice length only change how it searches, not the stream's
# format: the smallest of these encodings is kept (about 50 bytes below bt4/273 alone, measured
# on stage2's body at 30,596 bytes; eight tries cost about half a second).
ENCODER_TRIES = [(mf, nice) for mf in (lzma.MF_BT2, lzma.MF_BT4) for nice in (32, 64, 128, 273)]


def compress(data):
    return bytes([PROPS]) + min((lzma.compress(data, format=lzma.FORMAT_RAW, filters=[{
        "id": lzma.FILTER_LZMA1, "preset": 9 | lzma.PRESET_EXTREME, "lc": LC, "lp": LP, "pb": PB,
        "mf": mf, "nice_len": nice}]) for mf, nice in ENCODER_TRIES), key=len)


def main():
    head_path, body_path, out_path = sys.argv[1:4]
    room, text = int(sys.argv[4], 0), int(sys.argv[5], 0)
    head = open(head_path, "rb").read()
    body = open(body_path, "rb").read()
    if not 0 <= text <= len(body):
        sys.exit(f"pack.py: the text ({text} bytes) must lie inside the body ({len(body)} bytes)")
    packed = head + compress(x86_filter(body, text))
    if len(packed) > room:
        sys.exit(f"pack.py: the packed stage2 is {len(packed)} bytes; it must fit the {room} bytes "
                 "below the body's link address")
    dec = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA1, "lc": LC,
                                                           "lp": LP, "pb": PB}])
    if x86_filter(dec.decompress(packed[len(head) + 1:], len(body)), text, decode=True) != body:
        sys.exit("pack.py: the packed body does not round-trip")
    with open(out_path, "wb") as f:
        f.write(packed)


if __name__ == "__main__":
    main()
