#ifndef CANTEEN_CPCSC_SHIM_H
#define CANTEEN_CPCSC_SHIM_H

#include <stdint.h>
#include <string.h>
#include <PCSC/winscard.h>
#include <PCSC/wintypes.h>
#include <PCSC/pcsclite.h>

/* Thin wrappers over pcsc-lite for CardReader: DWORD is unsigned long on Linux and uint32_t on macOS, and
 * SCARD_PCI_T1 is a macro Swift cannot import, so every wrapper takes fixed-width types and builds the
 * SCARD_IO_REQUEST itself. Each returns the pcsc-lite status (SCARD_S_SUCCESS = 0). */

static const long CPCSC_SUCCESS = SCARD_S_SUCCESS;
static const long CPCSC_E_TIMEOUT = SCARD_E_TIMEOUT;
static const long CPCSC_E_CANCELLED = SCARD_E_CANCELLED;
static const long CPCSC_E_NO_READERS = SCARD_E_NO_READERS_AVAILABLE;
static const long CPCSC_E_NO_SMARTCARD = SCARD_E_NO_SMARTCARD;
static const long CPCSC_W_REMOVED_CARD = SCARD_W_REMOVED_CARD;
static const long CPCSC_E_NOT_TRANSACTED = SCARD_E_NOT_TRANSACTED;
static const long CPCSC_E_NO_SERVICE = SCARD_E_NO_SERVICE;
static const long CPCSC_E_UNKNOWN_READER = SCARD_E_UNKNOWN_READER;
static const uint32_t CPCSC_STATE_PRESENT = SCARD_STATE_PRESENT;
static const uint32_t CPCSC_STATE_EMPTY = SCARD_STATE_EMPTY;
static const uint32_t CPCSC_STATE_CHANGED = SCARD_STATE_CHANGED;
static const uint32_t CPCSC_STATE_UNAWARE = SCARD_STATE_UNAWARE;

static inline long cpcsc_establish(SCARDCONTEXT *context) {
    return SCardEstablishContext(SCARD_SCOPE_SYSTEM, NULL, NULL, context);
}

static inline long cpcsc_release(SCARDCONTEXT context) { return SCardReleaseContext(context); }

static inline long cpcsc_cancel(SCARDCONTEXT context) { return SCardCancel(context); }

/* The readers as a multi-string; with buffer NULL, only the needed length. */
static inline long cpcsc_list_readers(SCARDCONTEXT context, char *buffer, uint32_t *length) {
    DWORD size = buffer == NULL ? 0 : *length;
    long status = SCardListReaders(context, NULL, buffer, &size);
    *length = (uint32_t)size;
    return status;
}

/* Connects in shared mode with T=0 or T=1; the active protocol comes back in *protocol. */
static inline long cpcsc_connect(SCARDCONTEXT context, const char *reader, SCARDHANDLE *card, uint32_t *protocol) {
    DWORD active = 0;
    long status = SCardConnect(context, reader, SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1, card,
                               &active);
    *protocol = (uint32_t)active;
    return status;
}

static inline long cpcsc_disconnect(SCARDHANDLE card) { return SCardDisconnect(card, SCARD_LEAVE_CARD); }

static inline long cpcsc_transmit(SCARDHANDLE card, uint32_t protocol, const uint8_t *send, uint32_t send_length,
                                  uint8_t *receive, uint32_t *receive_length) {
    SCARD_IO_REQUEST request;
    request.dwProtocol = protocol;
    request.cbPciLength = sizeof(SCARD_IO_REQUEST);
    DWORD length = *receive_length;
    long status = SCardTransmit(card, &request, send, send_length, NULL, receive, &length);
    *receive_length = (uint32_t)length;
    return status;
}

/* Waits until the reader's state differs from current_state (or timeout_ms passes); gives the new state
 * and, when a card is present, its ATR (atr holds 33 bytes). */
static inline long cpcsc_wait_change(SCARDCONTEXT context, const char *reader, uint32_t current_state,
                                     uint32_t *event_state, uint8_t *atr, uint32_t *atr_length, uint32_t timeout_ms) {
    SCARD_READERSTATE state;
    memset(&state, 0, sizeof(state));
    state.szReader = reader;
    state.dwCurrentState = current_state;
    long status = SCardGetStatusChange(context, timeout_ms, &state, 1);
    *event_state = (uint32_t)state.dwEventState;
    uint32_t count = (uint32_t)state.cbAtr;
    if (count > MAX_ATR_SIZE) count = MAX_ATR_SIZE;
    memcpy(atr, state.rgbAtr, count);
    *atr_length = count;
    return status;
}

static inline const char *cpcsc_describe(long status) { return pcsc_stringify_error(status); }

#endif
