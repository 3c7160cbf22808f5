/* SPDX-License-Identifier: BSD-2-Clause */
/* The Secure Boot options of install and mkimage: --sign-key, --sign-cert and --shim, taken into
 * a struct efi_signing (tools/boot/efisig.h) and checked before anything is written. */
#ifndef ANYSECTOR_TOOLS_SIGN_OPTIONS_H
#define ANYSECTOR_TOOLS_SIGN_OPTIONS_H

#include "tools/boot/efisig.h"
#include "tools/cmd/cli.h"

#define RESIGN_LONG_OPTIONS                                                 \
	{ "sign-key", required_argument, NULL, OPT_SIGN_KEY },              \
	{ "sign-cert", required_argument, NULL, OPT_SIGN_CERT }

#define SIGNING_LONG_OPTIONS                                                \
	RESIGN_LONG_OPTIONS,                                                \
	{ "shim", required_argument, NULL, OPT_SHIM },                      \
	{ "lock-config", no_argument, NULL, OPT_LOCK_CONFIG }

#define SIGNING_HELP                                                                        \
	"  --sign-key KEY.pem   sign BOOTX64.EFI for Secure Boot with this private key (PEM;\n" \
	"                       an encrypted key asks for its passphrase) ...\n"              \
	"  --sign-cert CERT.pem ... and this certificate (sbsign; checked with sbverify)\n"   \
	"  --shim SHIM.efi      install this signed shim as \\EFI\\BOOT\\BOOTX64.EFI and the\n" \
	"                       loader as \\EFI\\BOOT\\grubx64.efi, which shim starts\n" \
	"  --lock-config        lock the loader to anysector.cfg: its SHA-256 goes into the\n" \
	"                       loader before it is signed, which then boots that file alone\n" \
	"                       (every entry pinned; no /loader/entries; no editor); needs\n"  \
	"                       --sign-key and --sign-cert\n"

#define RESIGN_HELP                                                                         \
	"  --sign-key KEY.pem   on a locked menu (install --lock-config): sign the loader again\n" \
	"  --sign-cert CERT.pem ... with this key and certificate, locked to the new\n"        \
	"                       anysector.cfg (without them a locked menu is not changed)\n"

/* Handles the options above; cmd names the command in a usage error. */
enum opt_result signing_option(int opt, const char *arg, struct efi_signing *sg, const char *cmd);
/* After the options: --sign-key and --sign-cert go together, and the files can be read.
 * Returns 0 or an exit code. */
int signing_finish(const struct efi_signing *sg, const char *cmd);

#endif
