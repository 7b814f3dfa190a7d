// MARK: - How far to read

extension TagTLV {
    /// How many bytes of a data area a reader needs for its first NDEF TLV (or the terminator before one): the
    /// offset just past it, which may lie beyond `area` (what has been read so far); nil when `area` is too short
    /// to tell. Null TLVs are skipped and other TLVs stepped over by their length, as the decoder does.
    public static func readingEnd(of area: [UInt8]) -> Int? {
        var at = 0
        while at < area.count {
            switch area[at] {
            case 0x00:
                at += 1
                continue
            case 0xFE:
                return at + 1
            default:
                break
            }
            guard at + 1 < area.count else { return nil }
            var length = Int(area[at + 1])
            var header = 2
            if length == 0xFF {
                guard at + 3 < area.count else { return nil }
                length = Int(area[at + 2]) << 8 | Int(area[at + 3])
                header = 4
            }
            if area[at] == 0x03 { return at + header + length }
            at += header + length
        }
        return nil
    }
}
