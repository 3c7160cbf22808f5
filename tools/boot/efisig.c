/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* memmem */
#include "tools/boot/efisig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/pkcs7.h>
#include <openssl/x509.h>

#include "common/errors.h"
#include "common/pe.h"
#include "tools/base/exit_codes.h"
#include "tools/base/report.h"
#include "tools/base/run.h"
#include "tools/base/tempfile.h"

static void field_copy(char *dst, size_t cap, const char *p, size_t n)
{
	snprintf(dst, cap, "%.*s", (int)n, p);
	for (char *c = dst; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7F)
			*c = '?';
}

/* The signer of one PKCS#7 SignedData blob (Authenticode), or false when it does not parse. */
static bool pkcs7_signer(const uint8_t *der, size_t len, char *out, size_t cap)
{
	const unsigned char *p = der;
	PKCS7 *p7 = d2i_PKCS7(NULL, &p, (long)len);
	bool ok = false;

	if (!p7)
		return false;
	if (PKCS7_type_is_signed(p7)) {
		STACK_OF(X509) *signers = PKCS7_get0_signers(p7, NULL, 0);
		if (signers && sk_X509_num(signers) > 0) {
			X509_NAME_oneline(X509_get_subject_name(sk_X509_value(signers, 0)), out,
					  (int)cap);
			ok = true;
		}
		sk_X509_free(signers);
	}
	PKCS7_free(p7);
	return ok;
}

void efi_binary_inspect(const uint8_t *buf, size_t len, struct efi_binary *out)
{
	struct pe_image pe;
	const uint8_t *data;
	size_t n;

	memset(out, 0, sizeof *out);
	if (pe_parse(buf, len, &pe))
		return;
	out->pe = true;
	/* The image's own component is the first record after "sbat"; its version is the last
	 * record's (a distribution's line, "shim.debian,1,Debian,shim,16.1,...", comes last). */
	int rc = pe_section(&pe, ".sbat", &data, &n);
	if (!rc) {
		struct sbat_record rec;
		size_t at = 0;
		while (!(rc = sbat_next(data, n, &at, &rec))) {
			if (rec.field_len[0] == 4 && !memcmp(rec.field[0], "sbat", 4))
				continue;
			if (!out->component[0]) {
				field_copy(out->component, sizeof out->component, rec.field[0],
					   rec.field_len[0]);
				out->generation = rec.generation;
			}
			field_copy(out->version, sizeof out->version, rec.field[4], rec.field_len[4]);
		}
	}
	out->sbat_bad = rc == AS_ECORRUPT;
	uint32_t pos = 0;
	uint16_t rev, type;
	while (!(rc = pe_cert_next(&pe, &pos, &rev, &type, &data, &n))) {
		if (type != PE_CERT_TYPE_PKCS7)
			continue;
		if (out->nsigs < EFI_SIGNERS_MAX &&
		    !pkcs7_signer(data, n, out->signer[out->nsigs], sizeof out->signer[0]))
			out->sig_bad = true;
		out->nsigs++;
	}
	if (rc == AS_ECORRUPT)
		out->sig_bad = true;
}

const char *efi_binary_text(const struct efi_binary *b, char *buf, size_t cap)
{
	size_t at = 0;
#define ADD(...) (at += (size_t)snprintf(buf + at, at < cap ? cap - at : 0, __VA_ARGS__))
	if (!b->pe) {
		ADD("not a PE image");
		return buf;
	}
	if (!strcmp(b->component, "anysector"))
		ADD("anysector's loader");
	else if (!strcmp(b->component, "shim"))
		ADD("shim");
	else if (b->component[0])
		ADD("a program whose SBAT names '%s'", b->component);
	else
		ADD("a program without SBAT data");
	if (b->component[0])
		ADD(" %s (SBAT generation %u)", b->version, b->generation);
	if (b->sbat_bad)
		ADD(" (its .sbat section does not parse)");
	if (!b->nsigs)
		ADD(", unsigned");
	for (unsigned i = 0; i < b->nsigs && i < EFI_SIGNERS_MAX; i++)
		ADD("%s%s", i ? " and " : ", signed by ", b->signer[i][0] ? b->signer[i] : "?");
	if (b->sig_bad)
		ADD(" (a signature does not parse)");
#undef ADD
	if (at >= cap && cap > 4)
		strcpy(buf + cap - 4, "...");
	return buf;
}

/* Removes sbsign's "gaps between PE/COFF sections" warnings from its ';'-joined output, so a
 * failure shows the line that says why. */
static void drop_gap_warnings(char *msg)
{
	char *w = msg;
	for (char *p = msg; *p;) {
		char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		bool gap = memmem(p, n, "gaps between PE/COFF sections", 29) != NULL;
		if (!gap) {
			if (w != msg)
				*w++ = ';';
			memmove(w, p, n);
			w += n;
		}
		p += n + (end ? 1 : 0);
	}
	*w = 0;
}

int loader_sign(const char *in, const struct efi_signing *sg, char *out, size_t cap)
{
	char msg[2048];
	int fd;

	if (temp_create("signed", out, cap, &fd)) {
		out[0] = 0;
		t_error("sign.temp", "cannot make a temporary file: %s", strerror(errno));
		return EXIT_ERRORS;
	}
	close(fd);
	/* sbsign warns about the gaps gnu-efi leaves between sections and signs all the same
	 * (docs/FIRMWARE.md "Secure Boot"): its output matters only when it fails. */
	const char *sign[] = { "sbsign", "--key", sg->key, "--cert", sg->cert, "--output", out, in,
			       NULL };
	int st = run_capture(sign, msg, sizeof msg);
	if (st) {
		drop_gap_warnings(msg);
		char why[sizeof msg + 128];
		t_error("sign.sbsign", "sbsign could not sign %s with %s and %s (%s%s)", in, sg->key,
			sg->cert, st == 127 ? "sbsign is not installed (Debian: sbsigntool): " : "",
			run_failure_text(st, msg, why, sizeof why));
		temp_remove(out);
		out[0] = 0;
		return EXIT_ERRORS;
	}
	const char *verify[] = { "sbverify", "--cert", sg->cert, out, NULL };
	if ((st = run_capture(verify, msg, sizeof msg))) {
		char why[sizeof msg + 128];
		t_error("sign.sbverify", "the signed loader does not verify with %s (sbverify %s): "
			"are the key and the certificate a pair?", sg->cert,
			run_failure_text(st, msg, why, sizeof why));
		temp_remove(out);
		out[0] = 0;
		return EXIT_ERRORS;
	}
	return 0;
}
