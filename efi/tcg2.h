/* SPDX-License-Identifier: BSD-2-Clause */
/* EFI_TCG2_PROTOCOL, as the TCG EFI Protocol Specification (family 2.0) defines it; gnu-efi
 * 3.0.15 has no header for it. Only what efi/measure.c calls is typed. */
#ifndef ANYSECTOR_EFI_TCG2_H
#define ANYSECTOR_EFI_TCG2_H

#include <efi.h>

#define EFI_TCG2_PROTOCOL_GUID \
	{ 0x607f766c, 0x7455, 0x42be, { 0x93, 0x0b, 0xe4, 0xd7, 0x6d, 0xb2, 0x72, 0x0f } }

struct efi_tcg2_version {
	UINT8 major, minor;
};

/* Natural alignment, as the specification declares it (not packed). */
struct efi_tcg2_capability {
	UINT8 size;
	struct efi_tcg2_version structure_version;
	struct efi_tcg2_version protocol_version;
	UINT32 hash_algorithm_bitmap;
	UINT32 supported_event_logs;
	BOOLEAN tpm_present;
	UINT16 max_command_size;
	UINT16 max_response_size;
	UINT32 manufacturer_id;
	UINT32 number_of_pcr_banks;
	UINT32 active_pcr_banks;
};

/* The event HashLogExtendEvent logs: packed, header 14 bytes, then the event data. */
struct __attribute__((packed)) efi_tcg2_event {
	UINT32 size;             /* all of it, event data included */
	UINT32 header_size;      /* 14 */
	UINT16 header_version;   /* 1 */
	UINT32 pcr_index;
	UINT32 event_type;
	UINT8 event[];
};
#define EFI_TCG2_EVENT_HEADER_SIZE 14u
#define EFI_TCG2_EVENT_HEADER_VERSION 1u

struct efi_tcg2;
typedef EFI_STATUS (EFIAPI *efi_tcg2_get_capability)(struct efi_tcg2 *self,
						     struct efi_tcg2_capability *cap);
typedef EFI_STATUS (EFIAPI *efi_tcg2_hash_log_extend_event)(struct efi_tcg2 *self, UINT64 flags,
							    EFI_PHYSICAL_ADDRESS data,
							    UINT64 data_len,
							    struct efi_tcg2_event *event);

struct efi_tcg2 {
	efi_tcg2_get_capability get_capability;
	void *get_event_log;
	efi_tcg2_hash_log_extend_event hash_log_extend_event;
	void *submit_command;
	void *get_active_pcr_banks;
	void *set_active_pcr_banks;
	void *get_result_of_set_active_pcr_banks;
};

#endif
