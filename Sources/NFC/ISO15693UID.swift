// MARK: - ISO15693UID

/// The byte order of an ISO 15693 UID: on the air (and from most readers' `FF CA`) least significant byte first,
/// ending in the manufacturer prefix `E0`; on labels, in vendors' tools and in ISO/IEC 15693-3, `E0` first.
public enum ISO15693UID {
    /// The UID most significant byte first (`E0…`): 8 bytes that end in `E0` and do not start with it are turned
    /// round; anything else is returned as given.
    public static func labelOrder(_ uid: [UInt8]) -> [UInt8] {
        guard uid.count == 8, uid.last == 0xE0, uid.first != 0xE0 else { return uid }
        return uid.reversed()
    }
}
