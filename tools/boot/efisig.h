/* SPDX-License-Identifier: BSD-2-Clause */
/* Secure Boot on the installer's side: what an EFI binary is (anysector's loader, shim, or
 * another program, by its .sbat component) and who signed it (the Authenticode signatures'
 * signers, read with OpenSSL's libcrypto), and signing the loader with sbsigntool. */
#ifndef ANYSECTOR_TOOLS_EFISIG_H
#define ANYSECTOR_TOOLS_EFISIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* The name shim starts after itself (its DEFAULT_LOADER), where --shim puts the loader. */
#define SHIM_SECOND_STAGE "grubx64.efi"
#define EFI_SIGNERS_MAX 4

struct efi_binary {
	bool pe;                     /* a PE image whose headers parse */
	char component[48];          /* its own SBAT component ("anysector", "shim"...); "" none */
	char version[48];            /* the last record's vendor_version (a distribution's line) */
	unsigned generation;
	bool sbat_bad;               /* a .sbat section whose lines do not parse */
	unsigned nsigs;              /* Authenticode signatures */
	char signer[EFI_SIGNERS_MAX][256];   /* each one's signer certificate subject */
	bool sig_bad;                /* a certificate table or PKCS#7 blob that does not parse */
};

/* Looks at an EFI binary's bytes. Never fails: what it cannot read is marked in *out. */
void efi_binary_inspect(const uint8_t *buf, size_t len, struct efi_binary *out);

/* "anysector's loader (SBAT anysector generation 1, version 0.1), signed by /CN=..." style
 * text for check. */
const char *efi_binary_text(const struct efi_binary *b, char *buf, size_t cap);

/* --sign-key, --sign-cert, --shim and --lock-config of install and mkimage; --sign-key and
 * --sign-cert of add, remove and set-default (tools/cmd/sign_options.h). */
struct efi_signing {
	const char *key;
	const char *cert;
	const char *shim;
	bool lock;                   /* --lock-config (tools/ops/lockcfg.h) */
};

/* Signs the loader in into a new temporary file (its name into out) with sbsign and checks the
 * result with sbverify --cert. Returns 0 or an exit code (the temporary file is gone then). */
int loader_sign(const char *in, const struct efi_signing *sg, char *out, size_t cap);

#endif
