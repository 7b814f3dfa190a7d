import CanteenCore

/// A parsed `Accept-Language` header (RFC 9110 §12.5.4): language ranges with their weights.
///
/// Parsing never fails: a malformed part (bad tag, bad `q`) is skipped and the rest is kept.
/// `q=0` marks a range as not acceptable; `*` stands for any language.
public struct AcceptLanguage: Hashable, Sendable {
    /// One language range (`es-UY`, `ar-EG-u-nu-latn`, `*`) and its weight in thousandths.
    public struct Range: Hashable, Sendable {
        /// The range as sent, with `_` read as `-` (`en_US` → `en-US`); `*` for any language.
        public var tag: String
        /// The weight, 0…1000 (`q=0.8` → 800); 0 means "not acceptable".
        public var quality: Int

        public init(tag: String, quality: Int) {
            self.tag = tag
            self.quality = quality
        }

        /// Whether this is the `*` range.
        public var isWildcard: Bool { tag == "*" }
    }

    /// Longest header read; anything after is ignored.
    public static let maximumLength = 4096
    /// Most ranges read from one header.
    public static let maximumRanges = 64

    /// Every well-formed range, in header order, including those with `q=0`.
    public var ranges: [Range]

    public init(ranges: [Range]) { self.ranges = ranges }

    /// Parses a header value; malformed parts are ignored.
    public init(header: String) {
        var ranges: [Range] = []
        for part in header.utf8.prefix(Self.maximumLength).split(separator: UInt8(ascii: ",")) {
            guard ranges.count < Self.maximumRanges else { break }
            if let range = Self.parseRange(String(decoding: part, as: UTF8.self)[...]) {
                ranges.append(range)
            }
        }
        self.ranges = ranges
    }

    // MARK: - Preference

    /// The acceptable ranges (`q` > 0), most wanted first; equal weights keep header order.
    public var preferred: [Range] {
        ranges.enumerated()
            .filter { $0.element.quality > 0 }
            .sorted { ($0.element.quality, -$0.offset) > ($1.element.quality, -$1.offset) }
            .map(\.element)
    }

    /// Whether the reader refused `tag` with `q=0`: a refused `zh` refuses `zh-Hans` too.
    public func refuses(_ tag: String) -> Bool {
        let candidate = tag.lowercased()
        return ranges.contains { range in
            guard range.quality == 0, !range.isWildcard else { return false }
            let refused = range.tag.lowercased()
            return candidate == refused || candidate.hasPrefix(refused + "-")
        }
    }

    // MARK: - Parsing

    /// `tag *( ";" parameter )`, or nil when the tag or its `q` is malformed.
    static func parseRange(_ text: Substring) -> Range? {
        let pieces = text.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = pieces.first else { return nil }
        let tag = first.trimmingHTTPWhitespace().replacingUnderscores()
        guard isWellFormedRange(tag) else { return nil }
        var quality = 1000
        for parameter in pieces.dropFirst() {
            let nameAndValue = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard nameAndValue.count == 2 else { return nil }
            let name = nameAndValue[0].trimmingHTTPWhitespace()
            guard name.lowercased() == "q" else { continue }
            guard let parsed = parseQuality(nameAndValue[1].trimmingHTTPWhitespace()[...]) else { return nil }
            quality = parsed
        }
        return Range(tag: tag, quality: quality)
    }

    /// `*`, or 1–8 letters followed by `-` subtags of 1–8 letters or digits.
    static func isWellFormedRange(_ tag: String) -> Bool {
        if tag == "*" { return true }
        let subtags = tag.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard let primary = subtags.first, (1...8).contains(primary.count),
            primary.allSatisfy(isASCIILetter)
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.allSatisfy { isASCIILetter($0) || isASCIIDigit($0) }
        }
    }

    /// `0`, `0.###`, `1`, `1.000` (RFC 9110 `qvalue`) in thousandths; `.5` is read as `0.5`.
    static func parseQuality(_ text: Substring) -> Int? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 5 else { return nil }
        let dot = bytes.firstIndex(of: UInt8(ascii: "."))
        let integerPart = bytes[..<(dot ?? bytes.endIndex)]
        let fractionPart = dot.map { bytes[($0 + 1)...] } ?? []
        guard integerPart.count <= 1, fractionPart.count <= 3,
            integerPart.allSatisfy(isASCIIDigit), fractionPart.allSatisfy(isASCIIDigit),
            !(integerPart.isEmpty && fractionPart.isEmpty)
        else { return nil }
        let whole = integerPart.first.map { Int($0 - UInt8(ascii: "0")) } ?? 0
        var thousandths = 0
        var scale = 100
        for digit in fractionPart {
            thousandths += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        let value = whole * 1000 + thousandths
        return value <= 1000 ? value : nil
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isASCIIDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(decoding: utf8.map { $0 == UInt8(ascii: "_") ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
    }
}
