import CanteenCore
import CanteenJSON
import Foundation
import GRDB

extension AppDatabase {
    /// Opens `canteen.sqlite` in `directory` and, with `verify`, checks it before anything is
    /// served from it: SQLite's `quick_check` over every page, then every stored preference
    /// document and site default must parse. A file that is not a database, is truncated
    /// (half-written) or holds rows that do not parse is refused with `database_unreadable`
    /// naming the file (and the row), and is left exactly as it was: never replaced, repaired
    /// or migrated.
    public static func open(directory: URL, verify: Bool) throws -> AppDatabase {
        let path = directory.appendingPathComponent(fileName).path
        let database: AppDatabase
        do {
            if verify, FileManager.default.fileExists(atPath: path) {
                // Examined first, before migrations could write to a damaged file.
                try check(path: path)
            }
            database = try open(directory: directory)
        } catch let error as DatabaseError {
            throw unreadable(path, error.message ?? "\(error.resultCode)")
        }
        return database
    }

    /// `quick_check` and the stored JSON, before any migration or write (reading writes nothing
    /// to the database file itself).
    static func check(path: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.read { db in
            let problems = try String.fetchAll(db, sql: "PRAGMA quick_check(5)")
            guard problems == ["ok"] else {
                throw unreadable(path, "it fails SQLite's integrity check: \(problems.joined(separator: "; "))")
            }
            guard try db.tableExists("userPreferences") else { return }
            for row in try Row.fetchAll(db, sql: "SELECT userId, document FROM userPreferences") {
                let userID: String = row["userId"]
                let text: String = row["document"]
                guard (try? JSONValue.parse(Data(text.utf8)))?.objectValue != nil else {
                    throw unreadable(
                        path, "row '\(userID)' of table userPreferences is not a JSON object of preferences")
                }
            }
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM sitePreferences") {
                let key: String = row["key"]
                let text: String = row["value"]
                guard (try? JSONValue.parse(Data(text.utf8))) != nil else {
                    throw unreadable(path, "row '\(key)' of table sitePreferences is not valid JSON")
                }
            }
        }
    }

    static func unreadable(_ path: String, _ problem: String) -> CanteenError {
        CanteenError(
            .internal, code: .databaseUnreadable,
            message: "\(path): \(problem). Canteen will not start on this file and has not changed it: "
                + "restore it from a backup, or move it away to start with an empty database",
            parameters: ["file": path])
    }
}
