/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/cmd/sign_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/util.h"

enum opt_result signing_option(int opt, const char *arg, struct efi_signing *sg, const char *cmd)
{
	if (opt == OPT_LOCK_CONFIG) {
		sg->lock = true;
		return OPTION_TAKEN;
	}
	const char **slot = opt == OPT_SIGN_KEY ? &sg->key : opt == OPT_SIGN_CERT ? &sg->cert :
			    opt == OPT_SHIM ? &sg->shim : NULL;
	if (!slot)
		return OPTION_OTHER;
	if (*slot) {
		usage_error(cmd, "--%s given twice",
			    opt == OPT_SIGN_KEY ? "sign-key" : opt == OPT_SIGN_CERT ? "sign-cert" : "shim");
		return OPTION_BAD;
	}
	*slot = arg;
	return OPTION_TAKEN;
}

/* Reads a whole file (at most max bytes). Returns 0, AS_EIO (errno), or AS_ETOOBIG. */
static int slurp(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return AS_EIO;
	*buf = xmalloc(max + 1);
	*len = fread(*buf, 1, max + 1, f);
	int bad = ferror(f);
	fclose(f);
	if (bad || *len > max) {
		free(*buf);
		*buf = NULL;
		return bad ? AS_EIO : AS_ETOOBIG;
	}
	return 0;
}

/* shim is some 1 MiB; nothing an ESP boots first is anywhere near this. */
#define SHIM_MAX_BYTES (64u << 20)

int signing_finish(const struct efi_signing *sg, const char *cmd)
{
	if (!sg->key != !sg->cert)
		return usage_error(cmd, "--sign-key and --sign-cert go together");
	if (sg->lock && !sg->key)
		return usage_error(cmd, "--lock-config needs --sign-key and --sign-cert: a lock is "
				   "only worth the signature that keeps the loader from being changed");
	const char *files[2] = { sg->key, sg->cert };
	for (unsigned i = 0; i < 2; i++)
		if (files[i] && access(files[i], R_OK))
			return usage_error(cmd, "--%s %s: %s", i ? "sign-cert" : "sign-key", files[i],
					   strerror(errno));
	if (!sg->shim)
		return 0;
	uint8_t *buf;
	size_t len;
	int err = slurp(sg->shim, SHIM_MAX_BYTES, &buf, &len);
	if (err)
		return usage_error(cmd, "--shim %s: %s", sg->shim,
				   err == AS_ETOOBIG ? "larger than 64 MiB, not a shim" : strerror(errno));
	struct efi_binary b;
	efi_binary_inspect(buf, len, &b);
	free(buf);
	if (!b.pe)
		return usage_error(cmd, "--shim %s is not an EFI program (no PE header)", sg->shim);
	if (strcmp(b.component, "shim"))
		t_warn("shim.not_shim", "--shim %s has no SBAT line of shim: it may not start %s",
		       sg->shim, SHIM_SECOND_STAGE);
	if (!b.nsigs)
		t_warn("shim.unsigned", "--shim %s is not signed: firmware with Secure Boot on "
		       "refuses it", sg->shim);
	if (!sg->key)
		t_warn("shim.loader_unsigned", "--shim without --sign-key: the loader is not signed, "
		       "so shim starts it under Secure Boot only when its hash is enrolled as a MOK");
	return 0;
}
