import ArgumentParser
import CanteenApp
import CanteenCore
import CanteenStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension DatabaseCommand {
    /// `canteen db backup --to FILE`: an online copy of the SQLite database.
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the SQLite database to FILE while servers keep taking orders (SQLite's online backup).",
            discussion: """
                The copy is the database as of the moment the backup started: every order acknowledged before \
                then is in it. It is checked (PRAGMA integrity_check) before it takes FILE's name; FILE must not \
                exist. Keep DIR/card.key with it: badge cards and coupons need that key. On PostgreSQL use \
                pg_dump instead.
                """)

        @OptionGroup var data: DataOptions
        @Option(name: .customLong("to"), help: "The file to write (it must not exist).") var to: String

        func run() async throws {
            try await reportingErrors {
                let directory = try sqliteDirectory(data, doing: "back it up")
                let started = ContinuousClock.now
                let meter = PageProgress(verb: "copied")
                let summary = try DatabaseBackup.backup(directory: directory, to: URL(fileURLWithPath: to)) {
                    meter.show($0.copiedPages, of: $0.totalPages)
                }
                print(
                    "backed up \(directory.path)/\(AppDatabase.fileName) to \(to): \(summary.pages) pages "
                        + "(\(megabytes(summary.bytes)) MB), \(summary.orders) orders, integrity_check ok, "
                        + "in \(seconds(since: started)) s")
            }
        }
    }

    /// `canteen db restore --from FILE`: a backup put back, servers stopped.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a backup back as the data dir's database (every server on the data dir stopped).",
            discussion: """
                Refuses while a server runs on the data dir. The file must pass PRAGMA integrity_check and be a \
                Canteen database of this version or older (the server migrates it when it starts). The database \
                it replaces is kept beside it as canteen.sqlite.before-restore-TIME. Run it as the service's user \
                (sudo -u canteen); run as root, the restored file is given to the data dir's owner.
                """)

        @OptionGroup var data: DataOptions
        @Option(name: .customLong("from"), help: "The backup to restore.") var from: String

        func run() async throws {
            try await reportingErrors {
                let directory = try sqliteDirectory(data, doing: "restore it")
                let summary = try DatabaseBackup.restore(from: URL(fileURLWithPath: from), into: directory)
                print(
                    "restored \(from) into \(directory.path)/\(AppDatabase.fileName): \(summary.orders) orders, "
                        + "integrity_check ok")
                if let previous = summary.previous { print("the database it replaced is kept as \(previous.path)") }
            }
        }
    }
}

/// The SQLite data dir of `data`; on PostgreSQL, says to use its own tools, and fails.
private func sqliteDirectory(_ data: DataOptions, doing what: String) throws -> URL {
    switch try data.location() {
    case .sqlite(let directory?):
        return directory
    case .sqlite(nil):
        throw ExitCode.failure
    case .postgres(let url, _):
        let message = """
            error: the database is PostgreSQL (\(url)): \(what) with PostgreSQL's own tools, e.g.
                pg_dump --format=custom --file=canteen.dump '\(url)'
                pg_restore --clean --if-exists --dbname='\(url)' canteen.dump
            (with the servers stopped for a restore)

            """
        FileHandle.standardError.write(Data(message.utf8))
        throw ExitCode.failure
    }
}

/// Pages copied, on stderr: counted up in place on a terminal, a line per tenth otherwise.
private final class PageProgress {
    let verb: String
    private let line = ProgressLine()
    private var lastTenth = -1

    init(verb: String) { self.verb = verb }

    func show(_ done: Int, of total: Int) {
        let percent = total == 0 ? 100 : done * 100 / total
        line.show(
            "\(verb) \(done)/\(total) pages (\(percent) %)", finished: done == total,
            milestone: percent / 10 != lastTenth)
        lastTenth = percent / 10
    }
}

private func megabytes(_ bytes: Int64) -> String {
    (Double(bytes) / 1_048_576).formatted(.number.precision(.fractionLength(1)))
}
