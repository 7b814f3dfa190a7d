/// Syntax checks for BCP 47 language tags and POSIX-style locale identifiers.
public enum LanguageTag {
    /// `en`, `zh-Hans`, `es_UY`, `ar-EG-u-nu-latn`: letters and digits in 1–8 character subtags.
    public static func isWellFormed(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let language = subtags.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return subtags.dropFirst().allSatisfy {
            (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}
