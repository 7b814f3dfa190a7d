// MARK: - AdvertisingData

/// AD structures (length, type, payload) inside advertising data.
public enum AdvertisingData {
    /// One AD structure borrowed from the data.
    public struct Structure {
        public var type: UInt8
        public var payload: UnsafeRawBufferPointer
    }

    /// Whether the structures fit the data: a zero length ends the significant part; a length
    /// running past the end makes the data malformed.
    public static func isWellFormed(_ data: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < data.count {
            let length = Int(data[offset])
            if length == 0 { return true }
            offset += 1 + length
        }
        return offset == data.count
    }

    /// Calls `body` for each structure of the significant part; stops at a malformed one.
    public static func forEachStructure(in data: UnsafeRawBufferPointer, _ body: (Structure) throws -> Void) rethrows {
        var offset = 0
        while offset < data.count {
            let length = Int(data[offset])
            guard length > 0, offset + 1 + length <= data.count else { return }
            try body(
                Structure(
                    type: data[offset + 1],
                    payload: UnsafeRawBufferPointer(rebasing: data[(offset + 2)..<(offset + 1 + length)])))
            offset += 1 + length
        }
    }

    /// The owned (type, payload) pairs of `data`'s significant part; nil when malformed.
    public static func structures(in data: [UInt8]) -> [(type: UInt8, payload: [UInt8])]? {
        data.withUnsafeBytes { raw in
            guard isWellFormed(raw) else { return nil }
            var result: [(type: UInt8, payload: [UInt8])] = []
            forEachStructure(in: raw) { result.append(($0.type, Array($0.payload))) }
            return result
        }
    }
}
