# SPDX-License-Identifier: BSD-2-Clause
"""Secure Boot signing material for the tests: Debian's ovmf test key (the "snakeoil" key its
OVMF_VARS_4M.snakeoil.fd holds in PK, KEK and db; /usr/share/doc/ovmf/README.Debian), shim from
Debian's shim-unsigned, and other key pairs made on the spot; signing and verifying with
sbsigntool."""
import os
import subprocess

SNAKEOIL_KEY = "/usr/share/ovmf/PkKek-1-snakeoil.key"
SNAKEOIL_CERT = "/usr/share/ovmf/PkKek-1-snakeoil.pem"
SNAKEOIL_PASS = "snakeoil"
SNAKEOIL_SUBJECT = "/C=US/ST=Colorado/L=Fort Collins/O=SnakeOil"
SHIM_UNSIGNED = "/usr/lib/shim/shimx64.efi"


def snakeoil(workdir):
    """(key, cert): the snakeoil key without its passphrase (sbsign would ask for it) and its
    certificate, in workdir."""
    key = os.path.join(workdir, "snakeoil.key")
    cert = os.path.join(workdir, "snakeoil.pem")
    if not os.path.exists(key):
        subprocess.run(["openssl", "rsa", "-in", SNAKEOIL_KEY, "-passin", "pass:" + SNAKEOIL_PASS,
                        "-out", key], check=True, capture_output=True)
        with open(SNAKEOIL_CERT, "rb") as src, open(cert, "wb") as dst:
            dst.write(src.read())
    return key, cert


def new_pair(workdir, name):
    """(key, cert): a fresh self-signed RSA-2048 pair with CN=name, in workdir."""
    key = os.path.join(workdir, name + ".key")
    cert = os.path.join(workdir, name + ".pem")
    if not os.path.exists(key):
        subprocess.run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-nodes",
                        "-days", "3650", "-subj", "/CN=" + name, "-keyout", key, "-out", cert],
                       check=True, capture_output=True)
    return key, cert


def sign(src, dst, key, cert):
    """sbsign src into dst (sbsign's warnings about gnu-efi's section gaps are expected)."""
    subprocess.run(["sbsign", "--key", key, "--cert", cert, "--output", dst, src], check=True,
                   capture_output=True)
    return dst


def verifies(path, cert):
    """sbverify --cert cert path answers 0."""
    return subprocess.run(["sbverify", "--cert", cert, path], capture_output=True).returncode == 0
