/// Reading the feed (tickets, order events) after a position, a window of positions at a time:
/// `sequence > after AND sequence <= after + positions`. A range bounded on both sides keeps the
/// planner on the sequence index even while the table's statistics are young or missing (a
/// one-sided `sequence > $1` was planned as a scan of the whole table then, once per commit on
/// every server: docs/benchmarks.md). A reader goes on to the next window until it passes the
/// feed's head, read in the same statement.
enum FeedWindow {
    /// Feed positions per statement.
    static let positions: Int64 = 10_000
}
