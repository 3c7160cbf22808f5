/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/devpath.h"

#include "common/le.h"
#include "common/mem.h"

#define NODE_HDR 4u
#define HD_NODE_LEN 42u

static EFI_GUID device_path_guid = DEVICE_PATH_PROTOCOL;
static EFI_GUID dp_to_text_guid = EFI_DEVICE_PATH_TO_TEXT_PROTOCOL_GUID;

static uint8_t node_type(const uint8_t *n) { return n[0]; }
static uint8_t node_subtype(const uint8_t *n) { return n[1]; }
static uint16_t node_len(const uint8_t *n) { return le16_load(n + 2); }

static bool node_is_end(const uint8_t *n)
{
	return node_type(n) == END_DEVICE_PATH_TYPE && node_subtype(n) == END_ENTIRE_DEVICE_PATH_SUBTYPE;
}

EFI_DEVICE_PATH *dp_of_handle(EFI_HANDLE h)
{
	EFI_DEVICE_PATH *dp = NULL;
	if (!h || EFI_ERROR(g_bs->HandleProtocol(h, &device_path_guid, (void **)&dp)))
		return NULL;
	return dp;
}

size_t dp_size(const EFI_DEVICE_PATH *dp)
{
	const uint8_t *p = (const uint8_t *)dp;
	size_t off = 0;

	if (!dp)
		return 0;
	while (off + NODE_HDR <= DP_MAX_BYTES) {
		uint16_t len = node_len(p + off);
		if (len < NODE_HDR || off + len > DP_MAX_BYTES)
			return 0;
		if (node_is_end(p + off))
			return off + len;
		off += len;
	}
	return 0;
}

const EFI_DEVICE_PATH *dp_last_node(const EFI_DEVICE_PATH *dp)
{
	const uint8_t *p = (const uint8_t *)dp;
	size_t size = dp_size(dp), off = 0;
	const uint8_t *last = NULL;

	if (!size)
		return NULL;
	while (!node_is_end(p + off)) {
		last = p + off;
		off += node_len(p + off);
	}
	return (const EFI_DEVICE_PATH *)last;
}

bool dp_hd_decode(const EFI_DEVICE_PATH *node, struct dp_hd *out)
{
	const uint8_t *n = (const uint8_t *)node;

	if (!n || node_type(n) != MEDIA_DEVICE_PATH || node_subtype(n) != MEDIA_HARDDRIVE_DP ||
	    node_len(n) < HD_NODE_LEN)
		return false;
	out->number = le32_load(n + 4);
	out->start = le64_load(n + 8);
	out->size = le64_load(n + 16);
	memcpy(out->signature.b, n + 24, 16);
	out->mbr_sig = le32_load(n + 24);
	out->mbr_type = n[40];
	out->sig_type = n[41];
	return true;
}

bool dp_same_parent(const EFI_DEVICE_PATH *a, const EFI_DEVICE_PATH *b)
{
	const uint8_t *la = (const uint8_t *)dp_last_node(a), *lb = (const uint8_t *)dp_last_node(b);
	if (!la || !lb)
		return false;
	size_t na = (size_t)(la - (const uint8_t *)a), nb = (size_t)(lb - (const uint8_t *)b);
	return na == nb && !memcmp(a, b, na);
}

EFI_DEVICE_PATH *dp_parent(const EFI_DEVICE_PATH *dp)
{
	const EFI_DEVICE_PATH *last = dp_last_node(dp);
	if (!last)
		return NULL;
	size_t keep = (size_t)((const uint8_t *)last - (const uint8_t *)dp);
	uint8_t *out = efi_alloc(keep + NODE_HDR);
	if (!out)
		return NULL;
	memcpy(out, dp, keep);
	out[keep] = END_DEVICE_PATH_TYPE;
	out[keep + 1] = END_ENTIRE_DEVICE_PATH_SUBTYPE;
	le16_store(out + keep + 2, NODE_HDR);
	return (EFI_DEVICE_PATH *)out;
}

EFI_DEVICE_PATH *dp_append_file(const EFI_DEVICE_PATH *dp, const char *path)
{
	size_t size = dp_size(dp);
	size_t plen = 0;

	if (!size)
		return NULL;
	while (path[plen])
		plen++;
	/* File-path nodes are absolute: "vmlinuz" in the config means "\vmlinuz". */
	bool root = plen && (path[0] == '/' || path[0] == '\\');
	size_t units = plen + (root ? 0 : 1);
	size_t node = NODE_HDR + (units + 1) * sizeof(CHAR16);
	if (node > 0xFFFF)
		return NULL;
	size_t keep = size - NODE_HDR;
	uint8_t *out = efi_alloc(keep + node + NODE_HDR);
	if (!out)
		return NULL;
	memcpy(out, dp, keep);
	uint8_t *n = out + keep;
	n[0] = MEDIA_DEVICE_PATH;
	n[1] = MEDIA_FILEPATH_DP;
	le16_store(n + 2, (uint16_t)node);
	uint8_t *name = n + NODE_HDR;
	if (!root) {
		le16_store(name, '\\');
		name += 2;
	}
	for (size_t i = 0; i < plen; i++)
		le16_store(name + 2 * i, path[i] == '/' ? '\\' : (uint8_t)path[i]);
	le16_store(name + 2 * plen, 0);
	n += node;
	n[0] = END_DEVICE_PATH_TYPE;
	n[1] = END_ENTIRE_DEVICE_PATH_SUBTYPE;
	le16_store(n + 2, NODE_HDR);
	return (EFI_DEVICE_PATH *)out;
}

void dp_print(const EFI_DEVICE_PATH *dp)
{
	EFI_DEVICE_PATH_TO_TEXT_PROTOCOL *tt = NULL;
	CHAR16 *text = NULL;

	if (dp && dp_size(dp) &&
	    !EFI_ERROR(g_bs->LocateProtocol(&dp_to_text_guid, NULL, (void **)&tt)) && tt)
		text = tt->ConvertDevicePathToText(dp, FALSE, FALSE);
	if (!text) {
		con_puts(dp ? "(device path not printable)" : "(no device path)");
		return;
	}
	con_puts16(text);
	g_bs->FreePool(text);
}
