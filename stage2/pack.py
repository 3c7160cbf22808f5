#!/usr/bin/env python3
"""Packs stage2: the uncompressed head, then the body as a raw DEFLATE stream (RFC 1951, what
stage2/inflate.c decodes), made by zopfli, which packs the body about 4% smaller than zlib's
level 9 (stage2 must fit the legacy LBA-63 gap). The result is sealed by stage2/seal afterwards.

usage: pack.py HEAD BODY OUT ROOM
ROOM: bytes from the load address to the body's link address; the packed image must fit there,
because the head unpacks the body over the memory after it."""
import subprocess
import sys
import zlib


def main():
    head_path, body_path, out_path, room = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4], 0)
    head = open(head_path, "rb").read()
    body = open(body_path, "rb").read()
    try:
        deflated = subprocess.run(["zopfli", "--deflate", "--i15", "-c", body_path], check=True,
                                  stdout=subprocess.PIPE).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"pack.py: zopfli failed ({e}); install the Debian package zopfli (tools/deps.sh)")
    packed = head + deflated
    if len(packed) > room:
        sys.exit(f"pack.py: the packed stage2 is {len(packed)} bytes; it must fit the {room} bytes "
                 "below the body's link address")
    if zlib.decompress(packed[len(head):], -15) != body:
        sys.exit("pack.py: the DEFLATE stream does not round-trip")
    with open(out_path, "wb") as f:
        f.write(packed)


if __name__ == "__main__":
    main()
