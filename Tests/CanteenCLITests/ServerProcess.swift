import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `canteen serve` process, as an operator starts it: its port read from its own log, its
/// output kept (every line of it, for the tests that grep the logs), signals sent by pid.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let dataDirectory: URL
    private let output = Locked("")
    private(set) var port = 0

    /// The repository's `Locales/`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Starts `canteen serve --port 0` on `dataDirectory` and waits until it listens (or exits).
    init(dataDirectory: URL, menus: URL? = nil, extra: [String] = [], environment: [String: String] = [:]) throws {
        self.dataDirectory = dataDirectory
        process.executableURL = CanteenProcess.executable
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        process.arguments =
            [
                "serve", "--port", "0", "--data-dir", dataDirectory.path,
                "--menus", (menus ?? Self.repositoryRoot.appendingPathComponent("Menus")).path,
                "--locales", Self.repositoryRoot.appendingPathComponent("Locales").path,
            ] + extra
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            if !data.isEmpty { output.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if let found = Self.listeningPort(in: log) {
                port = found
                return
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        terminate(signal: SIGKILL)
        throw RawFailure("canteen serve did not start:\n\(log)")
    }

    /// Everything the process wrote so far (stdout and stderr).
    var log: String { output.withLock { $0 } }

    var pid: Int32 { process.processIdentifier }

    static func listeningPort(in log: String) -> Int? {
        guard let range = log.range(of: "Canteen listening on http://127.0.0.1:") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }

    /// Sends `signal`; with `wait`, waits up to that many seconds for the process to end.
    @discardableResult
    func terminate(signal: Int32, wait: Double = 30) -> Bool {
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(wait)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return !process.isRunning
    }

    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
    }
}

struct RawFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A temporary folder, removed by the caller.
func temporaryFolder(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("canteen-\(name)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A café open all day every day, about noon local time now (a fixed-offset zone), so "asap"
/// always finds a window today; windows of an hour with room for `capacity` orders.
func allDayCafe(id: String, capacity: Int = 100_000) -> [String: Any] {
    let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour!
    let offset = (12 - hour + 11) % 24 - 11
    // Zones without daylight saving time, by UTC offset (cafés take IANA city zones).
    let zones = [
        -11: "Pacific/Pago_Pago", -10: "Pacific/Honolulu", -9: "Pacific/Gambier", -8: "Pacific/Pitcairn",
        -7: "America/Phoenix", -6: "America/Regina", -5: "America/Bogota", -4: "America/La_Paz",
        -3: "America/Argentina/Buenos_Aires", -2: "America/Noronha", -1: "Atlantic/Cape_Verde", 0: "Africa/Abidjan",
        1: "Africa/Lagos", 2: "Africa/Johannesburg", 3: "Asia/Riyadh", 4: "Asia/Dubai", 5: "Asia/Karachi",
        6: "Asia/Dhaka", 7: "Asia/Bangkok", 8: "Asia/Shanghai", 9: "Asia/Tokyo", 10: "Australia/Brisbane",
        11: "Pacific/Guadalcanal", 12: "Pacific/Tarawa",
    ]
    let zone = zones[offset]!
    let names = ["en": "All-day café"]
    let day = [["open": "00:00", "close": "24:00"]]
    return [
        "id": id, "languages": ["en"], "names": names, "timeZone": zone, "currency": "USD", "defaultLocale": "en_US",
        "tax": ["rateBasisPoints": 0, "included": true],
        "hours": Dictionary(
            uniqueKeysWithValues: [
                "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                "sunday",
            ].map { ($0, day) }),
        "beaconRegion": ["uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 700],
        "pickup": ["slotMinutes": 60, "capacity": capacity, "capacityUnit": "orders", "leadMinutes": 0],
        "categories": [["id": "coffee", "names": ["en": "Coffee"]]],
        "items": [
            [
                "id": "drip", "category": "coffee", "names": ["en": "Drip coffee"], "descriptions": ["en": "Hot"],
                "price": 250, "station": "bar", "allergens": [],
            ]
        ],
    ]
}

/// A folder holding one café file.
func menusFolder(_ cafe: [String: Any]) throws -> URL {
    let folder = temporaryFolder("menus")
    let data = try JSONSerialization.data(withJSONObject: cafe, options: [.sortedKeys])
    try data.write(to: folder.appendingPathComponent("\(cafe["id"]!).json"))
    return folder
}

/// A value shared between the threads of a test, behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}
