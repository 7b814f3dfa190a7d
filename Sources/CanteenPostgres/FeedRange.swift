/// Positions of the feed a commit took: after `before`, up to and including `after`.
struct FeedRange: Sendable, Hashable {
    let before: Int64
    let after: Int64
}
