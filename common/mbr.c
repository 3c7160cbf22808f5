/* SPDX-License-Identifier: BSD-2-Clause */
/* MBR records, CHS, the EBR walk and the UEFI protective MBR (docs/FIRMWARE.md "MBR"). */
#include "common/mbr.h"

#include "common/errors.h"
#include "common/le.h"
#include "common/mem.h"

#define LBA32_MAX 0xFFFFFFFFull

void chs_encode(uint64_t lba, uint8_t out[3])
{
	if (lba > CHS_MAX_LBA) {
		out[0] = 0xFE;
		out[1] = 0xFF;
		out[2] = 0xFF;
		return;
	}
	uint32_t l = (uint32_t)lba;
	uint32_t c = l / (CHS_HEADS * CHS_SECTORS);
	uint32_t rem = l % (CHS_HEADS * CHS_SECTORS);
	uint32_t h = rem / CHS_SECTORS;
	uint32_t s = rem % CHS_SECTORS + 1;

	out[0] = (uint8_t)h;
	out[1] = (uint8_t)(s | ((c >> 2) & 0xC0));
	out[2] = (uint8_t)(c & 0xFF);
}

uint64_t chs_decode(const uint8_t in[3])
{
	uint32_t h = in[0];
	uint32_t s = in[1] & 0x3F;
	uint32_t c = ((uint32_t)(in[1] & 0xC0) << 2) | in[2];

	if (s == 0)
		return UINT64_MAX;
	return ((uint64_t)c * CHS_HEADS + h) * CHS_SECTORS + s - 1;
}

void mbr_entry_decode(const uint8_t raw[MBR_ENTRY_SIZE], struct mbr_entry *e)
{
	e->status = raw[0];
	memcpy(e->chs_first, raw + 1, 3);
	e->type = raw[4];
	memcpy(e->chs_last, raw + 5, 3);
	e->lba_first = le32_load(raw + 8);
	e->sectors = le32_load(raw + 12);
}

void mbr_entry_encode(const struct mbr_entry *e, uint8_t raw[MBR_ENTRY_SIZE])
{
	raw[0] = e->status;
	memcpy(raw + 1, e->chs_first, 3);
	raw[4] = e->type;
	memcpy(raw + 5, e->chs_last, 3);
	le32_store(raw + 8, e->lba_first);
	le32_store(raw + 12, e->sectors);
}

void mbr_decode(const uint8_t rec[MBR_RECORD_SIZE], struct mbr *m)
{
	m->disk_sig = le32_load(rec + MBR_DISK_SIG_OFF);
	m->reserved = le16_load(rec + MBR_DISK_SIG_OFF + 4);
	for (unsigned i = 0; i < 4; i++)
		mbr_entry_decode(rec + MBR_TABLE_OFF + i * MBR_ENTRY_SIZE, &m->part[i]);
	m->boot_signature = rec[MBR_SIGNATURE_OFF] == 0x55 && rec[MBR_SIGNATURE_OFF + 1] == 0xAA;
}

void mbr_encode(const struct mbr *m, uint8_t rec[MBR_RECORD_SIZE])
{
	le32_store(rec + MBR_DISK_SIG_OFF, m->disk_sig);
	le16_store(rec + MBR_DISK_SIG_OFF + 4, m->reserved);
	for (unsigned i = 0; i < 4; i++)
		mbr_entry_encode(&m->part[i], rec + MBR_TABLE_OFF + i * MBR_ENTRY_SIZE);
	rec[MBR_SIGNATURE_OFF] = 0x55;
	rec[MBR_SIGNATURE_OFF + 1] = 0xAA;
}

int mbr_entry_set(struct mbr_entry *e, uint8_t type, bool active, uint64_t first_lba,
		  uint64_t sectors)
{
	if (sectors == 0)
		return AS_EINVAL;
	if (first_lba > LBA32_MAX || sectors > LBA32_MAX || first_lba + sectors - 1 > LBA32_MAX)
		return AS_ERANGE;
	e->status = active ? 0x80 : 0x00;
	e->type = type;
	e->lba_first = (uint32_t)first_lba;
	e->sectors = (uint32_t)sectors;
	chs_encode(first_lba, e->chs_first);
	chs_encode(first_lba + sectors - 1, e->chs_last);
	return 0;
}

void mbr_build_protective(uint64_t disk_sectors, struct mbr *m)
{
	uint64_t last = disk_sectors ? disk_sectors - 1 : 0;

	memset(m, 0, sizeof *m);
	m->boot_signature = true;
	struct mbr_entry *e = &m->part[0];
	e->status = 0;
	e->chs_first[0] = 0x00;
	e->chs_first[1] = 0x02;
	e->chs_first[2] = 0x00;
	e->type = MBR_TYPE_GPT_PROTECTIVE;
	/* The spec wants FF FF FF (not the FE FF FF clamp of ordinary entries) past CHS range. */
	if (last > CHS_MAX_LBA)
		memset(e->chs_last, 0xFF, 3);
	else
		chs_encode(last, e->chs_last);
	e->lba_first = 1;
	e->sectors = (uint32_t)(last > LBA32_MAX ? LBA32_MAX : last);
}

bool mbr_is_protective(const struct mbr *m)
{
	for (unsigned i = 0; i < 4; i++)
		if (m->part[i].type == MBR_TYPE_GPT_PROTECTIVE)
			return true;
	return false;
}

unsigned mbr_boot_part(const struct mbr *m)
{
	unsigned any = 0;

	for (unsigned i = 0; i < 4; i++) {
		const struct mbr_entry *e = &m->part[i];
		if (!mbr_type_is_fat(e->type) || !e->sectors || !e->lba_first)
			continue;
		if (e->status == 0x80)
			return i + 1;
		if (!any)
			any = i + 1;
	}
	return any;
}

static bool entry_is_zero(const struct mbr_entry *e)
{
	static const uint8_t z[3];
	return !e->status && !e->type && !e->lba_first && !e->sectors &&
	       !memcmp(e->chs_first, z, 3) && !memcmp(e->chs_last, z, 3);
}

unsigned mbr_check_protective(const struct mbr *m, uint64_t disk_sectors, struct diag *d)
{
	unsigned problems = 0;
	int ee = -1;
	uint64_t last = disk_sectors ? disk_sectors - 1 : 0;
	uint32_t want_size = (uint32_t)(last > LBA32_MAX ? LBA32_MAX : last);

	if (!m->boot_signature) {
		diag_error(d, "pmbr.signature", "protective MBR: no 0x55AA boot signature at byte 510");
		problems++;
	}
	for (unsigned i = 0; i < 4; i++) {
		if (m->part[i].type != MBR_TYPE_GPT_PROTECTIVE)
			continue;
		if (ee < 0) {
			ee = (int)i;
			continue;
		}
		diag_warn(d, "pmbr.multiple_ee", "protective MBR: entries %d and %u both have type 0xEE",
			  ee + 1, i + 1);
		problems++;
	}
	if (ee < 0) {
		diag_error(d, "pmbr.no_ee", "protective MBR: no entry has type 0xEE");
		return problems + 1;
	}

	const struct mbr_entry *e = &m->part[ee];
	unsigned n = (unsigned)ee + 1;
	if (e->status != 0) {
		diag_warn(d, "pmbr.status", "protective MBR entry %u: status 0x%02X, the spec wants 0x00",
			  n, e->status);
		problems++;
	}
	if (e->chs_first[0] != 0x00 || e->chs_first[1] != 0x02 || e->chs_first[2] != 0x00) {
		diag_warn(d, "pmbr.start_chs",
			  "protective MBR entry %u: start CHS %02X %02X %02X, the spec wants 00 02 00", n,
			  e->chs_first[0], e->chs_first[1], e->chs_first[2]);
		problems++;
	}
	uint8_t want_chs[3];
	if (last > CHS_MAX_LBA)
		memset(want_chs, 0xFF, 3);
	else
		chs_encode(last, want_chs);
	/* FF FF FF is what libfdisk writes whatever the size; accept it as "not representable". */
	bool all_ff = e->chs_last[0] == 0xFF && e->chs_last[1] == 0xFF && e->chs_last[2] == 0xFF;
	if (memcmp(e->chs_last, want_chs, 3) && !all_ff) {
		diag_warn(d, "pmbr.end_chs",
			  "protective MBR entry %u: end CHS %02X %02X %02X, the spec wants %02X %02X %02X "
			  "(last LBA %llu) or FF FF FF",
			  n, e->chs_last[0], e->chs_last[1], e->chs_last[2], want_chs[0], want_chs[1],
			  want_chs[2], (unsigned long long)last);
		problems++;
	}
	if (e->lba_first != 1) {
		diag_error(d, "pmbr.start_lba", "protective MBR entry %u: start LBA %u, the spec wants 1",
			   n, (unsigned)e->lba_first);
		problems++;
	}
	if (e->sectors != want_size) {
		/* Linux accepts 0xFFFFFFFF on any disk; anything else it ignores the GPT over. */
		if (e->sectors == LBA32_MAX)
			diag_warn(d, "pmbr.size",
				  "protective MBR entry %u: size 0xFFFFFFFF, the spec wants %u (disk of %llu "
				  "sectors)",
				  n, (unsigned)want_size, (unsigned long long)disk_sectors);
		else
			diag_error(d, "pmbr.size",
				   "protective MBR entry %u: size %u sectors, the spec wants %u (disk of "
				   "%llu sectors)",
				   n, (unsigned)e->sectors, (unsigned)want_size,
				   (unsigned long long)disk_sectors);
		problems++;
	}
	for (unsigned i = 0; i < 4; i++) {
		if ((int)i == ee || entry_is_zero(&m->part[i]))
			continue;
		if (m->part[i].type == MBR_TYPE_GPT_PROTECTIVE)
			continue; /* already reported */
		diag_warn(d, "pmbr.other_entries",
			  "protective MBR entry %u: type 0x%02X, the spec wants the other entries zero "
			  "(a hybrid MBR)",
			  i + 1, m->part[i].type);
		problems++;
	}
	return problems;
}
