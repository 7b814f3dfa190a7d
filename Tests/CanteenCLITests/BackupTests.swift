import CanteenTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `canteen db backup` of a live SQLite database under load, and `canteen db restore`.
@Suite("canteen db backup and restore", .serialized)
struct BackupTests {
    static let cafe = "backupcafe"

    static func orderBody(_ key: String) -> String {
        #"{"cafeId":"\#(cafe)","lines":[{"itemId":"drip","quantity":1}],"customer":{"name":"\#(key)"}}"#
    }

    /// SQLite's answer to `sql` on `file`, read by Python's sqlite3 (not Canteen's code).
    static func sqlite(_ file: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                + "print('\\n'.join(str(r[0]) for r in c.execute(sys.argv[2]))); c.commit()",
            file, sql,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "32 clients order during a backup: the copy is whole, holds every order acknowledged before; restored, serves them"
    )
    func backupUnderLoad() throws {
        let data = temporaryFolder("backup")
        let menus = try menusFolder(allDayCafe(id: Self.cafe))
        let copy = temporaryFolder("backup-copy").appendingPathComponent("canteen-backup.sqlite")
        defer {
            for folder in [data, menus, copy.deletingLastPathComponent()] {
                try? FileManager.default.removeItem(at: folder)
            }
        }
        let kiosk = try CanteenProcess.run(["tokens", "create", "--role", "kiosk", "--data-dir", data.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerProcess(dataDirectory: data, menus: menus, extra: ["--log-level", "notice"])
        let port = server.port

        // Given 32 clients ordering all along.
        let acknowledged = Locked<[String]>([])
        let stop = Locked(false)
        let group = DispatchGroup()
        for client in 0..<32 {
            DispatchQueue.global().async(group: group) {
                var connection: RawHTTP?
                var index = 0
                while !stop.current {
                    index += 1
                    guard let open = connection ?? (try? RawHTTP(port: port, timeout: 30)) else { break }
                    connection = open
                    let key = "client\(client)-\(index)"
                    guard
                        let response = try? open.exchange(
                            "POST", "/v1/orders",
                            headers: [
                                ("Authorization", "Bearer \(kiosk)"), ("Content-Type", "application/json"),
                                ("Idempotency-Key", key),
                            ],
                            body: Self.orderBody(key))
                    else {
                        connection = nil
                        continue
                    }
                    if response.status == 201, let id = (response.json as? [String: Any])?["id"] as? String {
                        acknowledged.withLock { $0.append(id) }
                    }
                }
            }
        }
        let deadline = Date().addingTimeInterval(60)
        while acknowledged.current.count < 300 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }

        // When a backup runs meanwhile.
        let before = Set(acknowledged.current)
        let backup = try CanteenProcess.run(["db", "backup", "--data-dir", data.path, "--to", copy.path])
        let during = acknowledged.current.count - before.count
        Thread.sleep(forTimeInterval: 0.5)
        stop.withLock { $0 = true }
        group.wait()
        let all = acknowledged.current

        // Then it succeeded, said how far it was, and the copy is whole and holds every order
        // acknowledged before it started.
        #expect(backup.status == 0, "\(backup.output)\(backup.errors)")
        #expect(backup.errors.contains("pages (100 %)"), "no progress: \(backup.errors)")
        #expect(backup.output.contains("integrity_check ok"), "\(backup.output)")
        #expect(before.count >= 300, "the load placed \(before.count) orders before the backup")
        #expect(try Self.sqlite(copy.path, "PRAGMA integrity_check") == "ok")
        let saved = Set(
            try Self.sqlite(copy.path, "SELECT id FROM customerOrder").split(separator: "\n").map(String.init))
        #expect(before.subtracting(saved).isEmpty, "\(before.subtracting(saved).count) acknowledged orders missing")
        #expect(saved.isSubset(of: Set(all)), "the copy holds orders never acknowledged")
        #expect(backup.output.contains("\(saved.count) orders"), "\(backup.output)")
        print(
            "backup under load: \(before.count) orders before, \(during) during, \(saved.count) in the copy, "
                + "\(all.count) in all")

        // A restore refuses while the server runs, and changes nothing.
        let refused = try CanteenProcess.run(["db", "restore", "--data-dir", data.path, "--from", copy.path])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("a server is running on \(data.path)"), "\(refused.errors)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("canteen.sqlite.restoring").path))

        // Restored with the server stopped, the data dir holds the copy's orders: those
        // acknowledged before the backup are served, those placed after it are gone.
        #expect(server.terminate(signal: SIGTERM, wait: 30))
        let restore = try CanteenProcess.run(["db", "restore", "--data-dir", data.path, "--from", copy.path])
        #expect(restore.status == 0, "\(restore.output)\(restore.errors)")
        #expect(restore.output.contains("restored \(copy.path)") && restore.output.contains("\(saved.count) orders"))
        let kept = try FileManager.default.contentsOfDirectory(atPath: data.path)
            .filter { $0.hasPrefix("canteen.sqlite.before-restore-") }
        #expect(kept.count == 1, "\(kept)")
        let restoredFile = data.appendingPathComponent("canteen.sqlite").path
        #expect(Int(try Self.sqlite(restoredFile, "SELECT COUNT(*) FROM customerOrder")) == saved.count)
        #expect(
            Int(try Self.sqlite(data.appendingPathComponent(kept[0]).path, "SELECT COUNT(*) FROM customerOrder"))
                == all.count, "the replaced database (checkpointed) holds every order")

        let again = try ServerProcess(dataDirectory: data, menus: menus, extra: ["--log-level", "notice"])
        defer { again.terminate(signal: SIGTERM) }
        let client = try RawHTTP(port: again.port)
        let auth = [("Authorization", "Bearer \(kiosk)")]
        for id in before.shuffled().prefix(20) {
            #expect(try client.exchange("GET", "/v1/orders/\(id)", headers: auth).status == 200, "\(id)")
        }
        if let later = Set(all).subtracting(saved).first {
            #expect(try client.exchange("GET", "/v1/orders/\(later)", headers: auth).status == 404)
        }
    }

    @Test("a backup refuses a FILE that exists and a data dir without a database, changing nothing")
    func refusals() throws {
        let data = temporaryFolder("backup-refusals")
        defer { try? FileManager.default.removeItem(at: data) }
        let empty = try CanteenProcess.run(["db", "backup", "--data-dir", data.path, "--to", data.path + "/x.sqlite"])
        #expect(empty.status != 0)
        #expect(empty.errors.contains("there is no database in \(data.path)"), "\(empty.errors)")

        _ = try CanteenProcess.run(["tokens", "create", "--role", "ops", "--data-dir", data.path])
        let existing = data.appendingPathComponent("already.txt")
        try Data("keep me".utf8).write(to: existing)
        let clash = try CanteenProcess.run(["db", "backup", "--data-dir", data.path, "--to", existing.path])
        #expect(clash.status != 0)
        #expect(clash.errors.contains("exists already"), "\(clash.errors)")
        #expect(try String(contentsOf: existing, encoding: .utf8) == "keep me")

        let notCanteen = data.appendingPathComponent("other.sqlite")
        _ = try Self.sqlite(notCanteen.path, "CREATE TABLE t (x)")
        let wrong = try CanteenProcess.run(["db", "restore", "--data-dir", data.path, "--from", notCanteen.path])
        #expect(wrong.status != 0)
        #expect(wrong.errors.contains("is not a Canteen database"), "\(wrong.errors)")

        // A Canteen database whose stored preferences do not parse: `serve` would refuse it, so does restore.
        let other = temporaryFolder("backup-refusals-other")
        defer { try? FileManager.default.removeItem(at: other) }
        _ = try CanteenProcess.run(["tokens", "create", "--role", "ops", "--data-dir", other.path])
        let damaged = other.appendingPathComponent("canteen.sqlite")
        _ = try Self.sqlite(
            damaged.path,
            """
            INSERT INTO userPreferences (userId, document, version, updatedAt) VALUES ('u-7', 'not json', 1, '2026-11-28')
            """)
        _ = try Self.sqlite(damaged.path, "PRAGMA wal_checkpoint(TRUNCATE)")
        let tokensBefore = try Self.sqlite(
            data.appendingPathComponent("canteen.sqlite").path, "SELECT id FROM accessToken")
        let unreadable = try CanteenProcess.run(["db", "restore", "--data-dir", data.path, "--from", damaged.path])
        #expect(unreadable.status != 0)
        #expect(unreadable.errors.contains("row 'u-7' of table userPreferences"), "\(unreadable.errors)")
        #expect(unreadable.errors.contains(damaged.path), "\(unreadable.errors)")
        #expect(
            try Self.sqlite(data.appendingPathComponent("canteen.sqlite").path, "SELECT id FROM accessToken")
                == tokensBefore)
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("canteen.sqlite.restoring").path))
    }

    @Test("on PostgreSQL, backup and restore say to use pg_dump / pg_restore and exit non-zero")
    func postgres() throws {
        for command in [
            ["db", "backup", "--to", "/tmp/never.sqlite"], ["db", "restore", "--from", "/tmp/never.sqlite"],
        ] {
            let result = try CanteenProcess.run(command + ["--database", "postgres://canteen@127.0.0.1:1/canteen"])
            #expect(result.status != 0)
            #expect(result.errors.contains("pg_dump") && result.errors.contains("pg_restore"), "\(result.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.sqlite"))
    }
}
