import ArgumentParser
import CanteenApp
import CanteenCore
import CanteenPostgres
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `canteen db copy`: moving a SQLite database into PostgreSQL; `backup` and `restore`.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db", abstract: "Back up, restore, or move a database between engines.",
        subcommands: [Backup.self, Restore.self, Copy.self])

    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a SQLite data dir into an empty PostgreSQL database, every table, in one transaction.",
            discussion: """
                Stop the servers on the data dir first: the copy reads one snapshot, and later writes are not copied.
                The target must be empty (a fresh database: the copy migrates it). Counts are checked before the
                commit; an interrupted copy leaves the target empty. Cards keep working when every server gets the
                same key: CANTEEN_CARD_KEY=$(xxd -p -c 64 DIR/card.key).
                """)

        @Option(name: .customLong("from"), help: "The SQLite data dir (holding canteen.sqlite).") var from: String
        @Option(name: .customLong("to"), help: "The PostgreSQL database, postgres://USER@HOST:PORT/DB.") var to: String

        func run() async throws {
            try await reportingErrors {
                let target = try PostgresURL(to, field: "--to")
                // On a terminal each table's line counts up in place; otherwise one line per table when done.
                let progress = ProgressLine()
                let started = ContinuousClock.now
                let copied = try await DatabaseCopy(source: URL(fileURLWithPath: from), target: target).run {
                    table, done, total in
                    let line = "  \(table.padding(toLength: 18, withPad: " ", startingAt: 0)) \(done)/\(total) rows"
                    progress.show(line, finished: done == total, milestone: done == total)
                }
                let rows = copied.reduce(0) { $0 + $1.rows }
                print(
                    "copied \(rows) rows of \(copied.count) tables from \(from) to \(target) in \(seconds(since: started)) s; every count matches"
                )
            }
        }
    }
}
