#!/usr/bin/env python3
"""A reader with a card in its field, for vsmartcard-vpcd (stdlib only; test-owned).

Connects to vpcd on 127.0.0.1:PORT (connecting is the tap, closing the removal) and answers its messages:
each is a 2-byte big-endian length + data; 1 byte is a control code (00 off, 01 on, 02 reset, 04 ATR),
anything longer an APDU. Cards: a FeliCa transit card (balance + history), an NTAG215 holding NDEF
(writable, lock bytes, CC) and ISO 15693 tags (NDEF Type 5) formatted as their makers do, or blank. After every
write the memory is saved to --dump as hex, so a test can check what the tag holds; --log records every APDU.

A card taken away (--remove-after-reads N/--remove-after-writes N) leaves as --removal says: "close" closes
the socket when the next read (or write) comes, without answering it (vpcd then gives an empty answer);
"pn532-timeout" answers that read, if it is a FeliCa exchange, as an ACR122U does when the card has gone
(D5 41 01 90 00, the PN532's timeout status), then leaves; "reset" leaves right after answering the Nth read
(N = 0: its first answer) by resetting the connection, so that vpcd fails to send the next command and
pcsc-lite reports the failed exchange (SCARD_E_NOT_TRANSACTED). (vpcd reads a reset met while it waits for an
answer as an empty answer, so a reset must come between commands.)

  card_emulator.py --port 35963 --card ntag215 [--dump FILE] [--remove-after-writes N] [--remove-after-reads N]
                   [--removal close|reset|pn532-timeout] [--stay SECONDS] [--log FILE]
  card_emulator.py --port 35963 --card icode-slix|st25-512|iso15693|iso15693-112|iso15693-blank [--ndef HEX]
                   [--no-system-info] [--dump FILE] [--log FILE]
"""
import argparse
import signal
import socket
import struct
import sys
import time

FELICA_ATR = bytes.fromhex("3B8F8001804F0CA0000003060" + "3F011000000008A")
IDM = bytes.fromhex("01010601CA0B4E21")
PMM = bytes.fromhex("03014B024F4993FF")
NTAG_UID = bytes.fromhex("04A25C1A2B3C80")
ISO15693_UID = bytes.fromhex("E004010812345678")


def storage_atr(standard, name):
    body = bytes.fromhex("3B8F8001804F0CA000000306") + bytes([standard, name >> 8, name & 0xFF, 0, 0, 0, 0])
    check = 0
    for b in body[1:]:
        check ^= b
    return body + bytes([check])


def history_block(process, year, month, day, balance, serial):
    date = ((year - 2000) << 9) | (month << 5) | day
    return bytes([0x16, process, 0, 2]) + struct.pack(">H", date) + bytes.fromhex("E33AE338") + \
        struct.pack("<H", balance) + serial.to_bytes(3, "big") + b"\x00"


class FeliCaCard:
    atr = FELICA_ATR
    uid = IDM

    def __init__(self):
        self.balance = 1234
        self.history = [history_block(0x46, 2026, 11, 24, 1234, 3), history_block(0x01, 2026, 11, 23, 1734, 2),
                        history_block(0x02, 2026, 11, 20, 1944, 1)]

    def felica(self, frame):
        if len(frame) < 2 or frame[0] != len(frame):
            return None  # a card ignores a frame whose length byte is wrong
        if frame[1] == 0x00:
            return bytes([18, 0x01]) + IDM + PMM
        if frame[1] == 0x06 and frame[2:10] == IDM:
            services = [struct.unpack("<H", frame[11 + 2 * i:13 + 2 * i])[0] for i in range(frame[10])]
            at = 11 + 2 * frame[10]
            count = frame[at]
            at += 1
            blocks = []
            for _ in range(count):
                if frame[at] & 0x80:
                    service, number = services[frame[at] & 0x0F], frame[at + 1]
                    at += 2
                else:
                    service, number = services[frame[at] & 0x0F], frame[at + 1] | frame[at + 2] << 8
                    at += 3
                if service == 0x008B and number == 0:
                    block = bytearray(16)
                    block[11:13] = struct.pack("<H", self.balance)
                    blocks.append(bytes(block))
                elif service == 0x090F and number < 20:
                    blocks.append(self.history[number] if number < len(self.history) else bytes(16))
                else:
                    return bytes([12, 0x07]) + IDM + b"\x01\xA8"
            body = bytes([0x07]) + IDM + b"\x00\x00" + bytes([len(blocks)]) + b"".join(blocks)
            return bytes([len(body) + 1]) + body
        return None

    def apdu(self, apdu):
        if apdu[:5] == b"\xFF\xCA\x00\x00\x00":
            return self.uid + b"\x90\x00"
        if apdu[:4] == b"\xFF\x00\x00\x00" and apdu[5:8] == b"\xD4\x40\x01":
            reply = self.felica(apdu[8:8 + apdu[4] - 3])
            if reply is None:
                return b"\xD5\x41\x01\x90\x00"
            return b"\xD5\x41\x00" + reply + b"\x90\x00"
        if apdu[:3] == b"\xFF\x00\x40":
            return b"\x90\x00"
        return b"\x6D\x00"


class MemoryTag:
    """A tag answering FF B0 / FF D6 over its memory in 4-byte blocks."""
    block_size = 4

    def __init__(self, memory):
        self.memory = bytearray(memory)
        self.writes = 0

    def apdu(self, apdu):
        if apdu[:5] == b"\xFF\xCA\x00\x00\x00":
            return self.uid + b"\x90\x00"
        if apdu[:2] == b"\xFF\xB0" and len(apdu) == 5:
            start = apdu[3] * self.block_size
            count = apdu[4] or 256
            if start + count > len(self.memory):
                return b"\x6A\x82"
            return bytes(self.memory[start:start + count]) + b"\x90\x00"
        if apdu[:2] == b"\xFF\xD6" and len(apdu) == 5 + apdu[4] and apdu[4] == self.block_size:
            block = apdu[3]
            if (block + 1) * self.block_size > len(self.memory) or not self.write(block, apdu[5:]):
                return b"\x63\x00"
            self.writes += 1
            return b"\x90\x00"
        if apdu[:3] == b"\xFF\x00\x40":
            return b"\x90\x00"
        return b"\x6D\x00"


class NTAG215(MemoryTag):
    uid = NTAG_UID
    atr = storage_atr(0x03, 0x0003)

    def __init__(self):
        memory = bytearray(135 * 4)
        memory[0:12] = NTAG_UID[:3] + bytes([0x88 ^ NTAG_UID[0] ^ NTAG_UID[1] ^ NTAG_UID[2]]) + NTAG_UID[3:] + \
            bytes([NTAG_UID[3] ^ NTAG_UID[4] ^ NTAG_UID[5] ^ NTAG_UID[6], 0x48, 0x00, 0x00])
        memory[12:16] = bytes.fromhex("E1103E00")
        memory[16:20] = bytes.fromhex("0300FE00")
        memory[130 * 4:131 * 4] = bytes.fromhex("000000BD")
        super().__init__(memory)

    def locked(self, page):
        static = self.memory[10] | self.memory[11] << 8
        if page == 3:
            return bool(static & 0x08)
        if 4 <= page <= 15:
            return bool(static & (1 << page))
        if 16 <= page <= 129:
            return bool(self.memory[130 * 4 + (page - 16) // 16 // 8] & (1 << ((page - 16) // 16 % 8)))
        return page < 2 or page > 130

    def write(self, page, data):
        if page == 2:  # lock bytes are one-time programmable: OR-ed in
            self.memory[10] |= data[2]
            self.memory[11] |= data[3]
            return True
        if page == 130:
            for i in range(3):
                self.memory[520 + i] |= data[i]
            return True
        if page == 3:  # the CC is one-time programmable too
            if self.locked(3):
                return False
            for i in range(4):
                self.memory[12 + i] |= data[i]
            return True
        if self.locked(page):
            return False
        self.memory[page * 4:page * 4 + 4] = data
        return True


class ISO15693Tag(MemoryTag):
    """An ISO 15693 tag behind a reader: FF CA gives the UID as it comes over the air (least significant byte first,
    E0 last), FF F6 2B 00 00 the tag's GET SYSTEM INFORMATION reply (SpringCard's pseudo-APDU), FF B0/FF D6 read
    and write one block at P1 P2; a block past the last one is refused with 63 00."""
    atr = storage_atr(0x0B, 0x0000)
    uid = bytes(reversed(ISO15693_UID))
    system_information = True

    def __init__(self, blocks=64, container="E1401F00"):
        self.blocks = blocks
        memory = bytearray(blocks * 4)
        if container:
            memory[0:8] = bytes.fromhex(container) + bytes.fromhex("0300FE00")
        super().__init__(memory)

    def apdu(self, apdu):
        if apdu == b"\xFF\xF6\x2B\x00\x00":
            if not self.system_information:
                return b"\x6D\x00"
            return b"\x00\x0F" + self.uid + bytes([0x00, 0x00, self.blocks - 1, self.block_size - 1, 0x01]) + \
                b"\x90\x00"
        if apdu[:2] in (b"\xFF\xB0", b"\xFF\xD6") and len(apdu) >= 5:
            block = apdu[2] << 8 | apdu[3]
            if block >= self.blocks:
                return b"\x63\x00"
            if apdu[1] == 0xB0:
                if apdu[4] != self.block_size:
                    return b"\x67\x00"
                return bytes(self.memory[block * 4:block * 4 + 4]) + b"\x90\x00"
        return super().apdu(apdu)

    def load(self, ndef):
        """Puts an NDEF message (hex) behind the container, as a TLV followed by the terminator."""
        message = bytes.fromhex(ndef)
        length = bytes([len(message)]) if len(message) < 0xFF else b"\xFF" + struct.pack(">H", len(message))
        tlv = b"\x03" + length + message + b"\xFE"
        self.memory[4:4 + len(tlv)] = tlv

    def write(self, block, data):
        self.memory[block * 4:block * 4 + 4] = data
        return True


# ISO 15693 tags as their makers format them: the container's size byte counts the whole memory (NXP, ST), or the
# area after the container (the NFC Forum's reading); and a blank tag.
ISO15693_TAGS = {
    "iso15693": (64, "E1401F00"),  # 256 bytes, size byte 1F: 248 bytes after the container
    "iso15693-112": (28, "E1400D00"),  # 112 bytes, size byte 0D: 104 bytes after the container
    "icode-slix": (28, "E1400E01"),  # NXP ICODE SLIX, 28 blocks of 4: 0E counts all 112 bytes
    "st25-512": (128, "E1404001"),  # ST25 with 512 bytes: 40 counts all of them
    "iso15693-blank": (28, None),  # an ICODE SLIX as it leaves the factory: no container
}


CARDS = {"felica": FeliCaCard, "ntag215": NTAG215}
CARDS.update({name: (lambda shape: lambda: ISO15693Tag(*shape))(shape) for name, shape in ISO15693_TAGS.items()})


def receive_exactly(sock, count):
    data = b""
    while len(data) < count:
        # vpcd writes the length and the APDU separately: acknowledge at once, or Nagle + delayed ACK cost 40 ms
        # per APDU.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("vpcd closed the connection")
        data += chunk
    return data


def send(sock, data):
    sock.sendall(struct.pack(">H", len(data)) + data)


def main():
    # A test runner may spawn us with signals blocked (libdispatch blocks them in its threads); unblock them so
    # SIGTERM stops us, and whatever we start.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--card", choices=sorted(CARDS), required=True)
    parser.add_argument("--dump", help="file that receives the tag memory as hex after every write")
    parser.add_argument("--load", help="hex memory to start from (a previous --dump)")
    parser.add_argument("--remove-after-writes", type=int, help="leave the field after this many writes")
    parser.add_argument("--remove-after-reads", type=int,
                        help="leave the field after this many reads (READ BINARY or a FeliCa exchange)")
    parser.add_argument("--removal", choices=["close", "reset", "pn532-timeout"], default="close",
                        help="how a card taken away mid-command shows (see above)")
    parser.add_argument("--stay", type=float, default=60.0, help="seconds to stay in the field")
    parser.add_argument("--ndef", help="an ISO 15693 tag's NDEF message (hex), behind its container")
    parser.add_argument("--no-system-info", action="store_true",
                        help="the reader refuses GET SYSTEM INFORMATION (6D 00), as readers without it do")
    parser.add_argument("--log", help="file that receives each APDU and its status word, one line each")
    args = parser.parse_args()
    card = CARDS[args.card]()
    if args.load:
        card.memory = bytearray(bytes.fromhex(open(args.load).read().strip()))
    if args.ndef:
        card.load(args.ndef)
    if args.no_system_info:
        card.system_information = False
    deadline = time.monotonic() + 10
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", args.port), timeout=1)
            break
        except OSError:
            if time.monotonic() > deadline:
                sys.exit("cannot reach vpcd on port %d" % args.port)
            time.sleep(0.1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(args.stay)
    print("in the field", flush=True)
    reads = 0

    def leave(message):
        """The card leaves the field while `message` is in flight, the way --removal says."""
        if args.removal == "pn532-timeout" and message[:4] == b"\xFF\x00\x00\x00" and message[5:7] == b"\xD4\x40":
            send(sock, b"\xD5\x41\x01\x90\x00")

    try:
        while True:
            (length,) = struct.unpack(">H", receive_exactly(sock, 2))
            message = receive_exactly(sock, length)
            if length == 1:
                if message[0] == 0x04:
                    send(sock, card.atr)
                continue
            if args.remove_after_writes is not None and message[:2] == b"\xFF\xD6" \
                    and card.writes >= args.remove_after_writes:
                print("removed mid-write", flush=True)
                leave(message)
                break
            if message[:2] == b"\xFF\xB0" or message[:4] == b"\xFF\x00\x00\x00":
                if args.remove_after_reads is not None and reads >= args.remove_after_reads \
                        and args.removal != "reset":
                    print("removed mid-read", flush=True)
                    leave(message)
                    break
                reads += 1
            reply = card.apdu(message)
            if args.log:
                with open(args.log, "a") as f:
                    f.write("%s %s\n" % (message.hex().upper(), reply[-2:].hex().upper()))
            leaving = args.removal == "reset" and args.remove_after_reads is not None \
                and reads >= args.remove_after_reads
            if leaving:
                # Armed before the answer goes, so that the close right after it is the RST and nothing else.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            send(sock, reply)
            if leaving:
                sock.close()
                print("removed between commands", flush=True)
                break
            if args.dump and message[:2] == b"\xFF\xD6":
                with open(args.dump, "w") as f:
                    f.write(card.memory.hex())
    except (ConnectionError, socket.timeout):
        pass
    finally:
        # Leave first: a reset must reach vpcd before it sends the next command (writing the dump takes time).
        sock.close()
        if args.dump and hasattr(card, "memory"):
            with open(args.dump, "w") as f:
                f.write(card.memory.hex())


if __name__ == "__main__":
    main()
