import CanteenCore
import CanteenFormat
import HTTPTypes

/// Entity tags and the conditional headers that carry them (`ETag`, `If-Match`, `If-None-Match`).
enum EntityTags {
    /// The strong entity tag of a version or cursor: `"7"`.
    static func tag(_ version: Int64) -> String { "\"\(version)\"" }

    /// The weak entity tag of a version: `W/"7"` (answers of one version differ by language).
    static func weakTag(_ version: Int64) -> String { "W/\"\(version)\"" }

    /// An `If-Match` header as a version condition: `*`, or a comma-separated list of strong
    /// tags (a weak tag never matches: `If-Match` compares strongly, and a tag that is not a
    /// version can match no document).
    static func precondition(ifMatch header: String) -> VersionPrecondition {
        let tags = header.split(separator: ",").map { $0.trimmingHTTPWhitespace() }
        if tags.contains("*") { return .exists }
        return .matches(
            tags.compactMap { tag in
                guard tag.count >= 3, tag.first == "\"", tag.last == "\"" else { return nil }
                return Int64(tag.dropFirst().dropLast())
            })
    }

    /// The cursor a kitchen display holds, from its `If-None-Match` (`"42"` or `W/"42"`; the
    /// first such tag of a list), or nil.
    static func cursor(ifNoneMatch header: String) -> Int64? {
        for candidate in header.split(separator: ",") {
            var tag = candidate.trimmingHTTPWhitespace()[...]
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            guard tag.count >= 3, tag.first == "\"", tag.last == "\"", let cursor = Int64(tag.dropFirst().dropLast()),
                cursor >= 0
            else { continue }
            return cursor
        }
        return nil
    }

    /// `If-None-Match` evaluation: `*`, or a comma-separated list of (possibly weak) tags.
    static func noneMatch(_ header: String, _ etag: String) -> Bool {
        if header == etag { return true }  // what a display polling with its cursor sends
        return header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingHTTPWhitespace()
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}

extension HTTPFields {
    /// `ETag: tag` and `Cache-Control: no-cache`: clients may keep the answer but must revalidate.
    mutating func setValidator(_ etag: String) {
        self[.eTag] = etag
        self[.cacheControl] = "no-cache"
    }
}
