// MARK: - One card, one spelling

extension CardIdentifier {
    /// The identifier as stored for a card of `technology`. An ISO 15693 UID is written most significant byte
    /// first (`E0…`, as ISO/IEC 15693-3 and the tags' labels write it); given the other way round (`…E0`, the
    /// order on the air, which readers and older Canteen printed), it is turned round. Other technologies keep
    /// their identifier as read.
    public func canonical(for technology: CardTechnology) -> CardIdentifier {
        guard technology == .iso15693, hex.count == 16, !hex.hasPrefix("E0"), hex.hasSuffix("E0") else { return self }
        return CardIdentifier(uncheckedHex: reversedBytes)
    }

    /// Every spelling a card of `technology` may have been registered under, the canonical one first: for ISO 15693
    /// also the reverse order, which cards registered before identifiers were made canonical may carry.
    public func spellings(for technology: CardTechnology) -> [CardIdentifier] {
        let canonical = canonical(for: technology)
        guard technology == .iso15693, canonical.hex.count == 16 else { return [canonical] }
        let reversed = CardIdentifier(uncheckedHex: canonical.reversedBytes)
        return reversed == canonical ? [canonical] : [canonical, reversed]
    }

    /// An identifier from hex already checked (upper case, whole bytes).
    private init(uncheckedHex: String) {
        hex = uncheckedHex
    }

    /// The hex with its bytes in reverse order.
    private var reversedBytes: String {
        var pairs: [Substring] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            pairs.append(hex[index..<next])
            index = next
        }
        return pairs.reversed().joined()
    }
}
