import NFC

// MARK: - Reader pseudo-APDUs

extension CardConnection {
    /// Sends an APDU and requires 90 00; `what` names the step in the error, which carries the status word of a
    /// refusal.
    func command(_ apdu: [UInt8], _ what: String) async throws(CardReaderError) -> [UInt8] {
        let response = try await transmit(apdu)
        guard response.isSuccess else {
            throw CardReaderError(
                code: "card_error", message: "\(what): the reader answered \(response.statusWord)",
                statusWord: [response.sw1, response.sw2])
        }
        return response.data
    }

    /// The card's UID (IDm for FeliCa): `FF CA 00 00 00`.
    public func identifier() async throws(CardReaderError) -> [UInt8] {
        try await command([0xFF, 0xCA, 0x00, 0x00, 0x00], "reading the identifier")
    }

    /// `count` bytes from block or page `address`: `FF B0 <address high> <address low> <count>` (4 Type 2 pages
    /// with 16).
    public func readBinary(address: Int, count: Int) async throws(CardReaderError) -> [UInt8] {
        let data = try await command(
            [0xFF, 0xB0, UInt8(address >> 8), UInt8(address & 0xFF), UInt8(count)], "reading block \(address)")
        guard data.count == count else {
            throw CardReaderError(
                code: "card_error", message: "reading block \(address): \(data.count) bytes instead of \(count)")
        }
        return data
    }

    /// Writes one block or page: `FF D6 <address high> <address low> <Lc> <data>`.
    public func updateBinary(address: Int, data: [UInt8]) async throws(CardReaderError) {
        _ = try await command(
            [0xFF, 0xD6, UInt8(address >> 8), UInt8(address & 0xFF), UInt8(data.count)] + data,
            "writing block \(address)")
    }

    /// An ISO 15693 tag's GET SYSTEM INFORMATION through the reader's pseudo-APDU `FF F6 2B 00 00` (SpringCard's;
    /// the reader addresses the tag in its field); nil when the reader refuses it by status word (it has no such
    /// instruction) or the tag gives no memory size.
    public func systemInformation() async throws(CardReaderError) -> ISO15693SystemInformation? {
        let data: [UInt8]
        do {
            data = try await command([0xFF, 0xF6, 0x2B, 0x00, 0x00], "GET SYSTEM INFORMATION")
        } catch  where error.statusWord != nil {
            return nil
        }
        let info = try decode { () throws(NFCDecodingError) in try ISO15693SystemInformation(readerReply: data) }
        return info.memorySize == nil ? nil : info
    }

    /// A FeliCa frame through the ACR122U-style direct transmit: `FF 00 00 00 Lc D4 40 01 <frame>` answered by
    /// `D5 41 00 <reply>`.
    public func feliCa(_ frame: [UInt8]) async throws(CardReaderError) -> [UInt8] {
        let data = try await command(
            [0xFF, 0x00, 0x00, 0x00, UInt8(frame.count + 3), 0xD4, 0x40, 0x01] + frame,
            "FeliCa exchange")
        guard data.count >= 3, data[0] == 0xD5, data[1] == 0x41 else {
            throw CardReaderError(
                code: "card_error", message: "FeliCa exchange: unexpected reader reply \(data.hexString)")
        }
        switch data[2] {
        case 0x00:
            return Array(data.dropFirst(3))
        case 0x01:  // PN532 InDataExchange: the target has not answered in time, so it left the field
            throw CardReaderError(
                code: "card_removed",
                message: "FeliCa exchange: the card did not answer (reader status 01, timeout): was it taken away?")
        default:
            throw CardReaderError(
                code: "card_error", message: "FeliCa exchange: reader status 0x\([data[2]].hexString)")
        }
    }
}
