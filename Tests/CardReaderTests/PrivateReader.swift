import Foundation
import NFC
import Synchronization

// MARK: - PrivateReader

/// A private pcscd with the vpcd virtual reader (Emulator/private_pcscd.py), and the test-owned card emulator
/// (Emulator/card_emulator.py) that taps cards on it. Stopped by `stop()`.
final class PrivateReader: @unchecked Sendable {
    static let emulatorFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Emulator")

    /// The `canteen` executable built next to the test bundle (or `CANTEEN_BIN`).
    static let canteen: URL = {
        if let path = ProcessInfo.processInfo.environment["CANTEEN_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "canteen")
    }()

    let daemon: Process
    let input: Pipe
    let socket: String
    let port: Int
    let folder: URL
    private var card: Process?

    init() throws {
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        daemon.arguments = [Self.emulatorFolder.appendingPathComponent("private_pcscd.py").path]
        input = Pipe()
        let output = Pipe()
        daemon.standardInput = input
        daemon.standardOutput = output
        try daemon.run()
        let line = output.fileHandleForReading.readLine()
        struct Started: Decodable { var socket: String; var port: Int; var folder: String }
        guard let started = try? JSONDecoder().decode(Started.self, from: Data(line.utf8)) else {
            daemon.terminate()
            throw PrivateReaderFailure(description: "private pcscd did not start: \(line)")
        }
        socket = started.socket
        port = started.port
        folder = URL(fileURLWithPath: started.folder)
    }

    /// Puts a card in the field; returns once the emulator is connected and pcscd has seen it.
    func tap(_ kind: String, arguments: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            [
                Self.emulatorFolder.appendingPathComponent("card_emulator.py").path, "--port", "\(port)",
                "--card", kind, "--stay", "30",
            ] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        _ = output.fileHandleForReading.readLine()
        card = process
        Thread.sleep(forTimeInterval: 0.6)  // pcscd polls for taps every 400 ms
    }

    /// Takes the card out of the field and waits until pcscd has noticed.
    func remove() {
        guard let card else { return }
        if card.isRunning { card.terminate() }
        card.waitUntilExit()
        self.card = nil
        Thread.sleep(forTimeInterval: 0.9)
    }

    /// Waits for the emulator to leave by itself (after `--remove-after-writes`).
    func waitForCardToLeave() {
        card?.waitUntilExit()
        card = nil
        Thread.sleep(forTimeInterval: 0.9)
    }

    /// Runs `canteen` with the private pcscd's socket; its status, stdout and stderr (through files, so no
    /// other child can hold a pipe open).
    func canteen(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = Self.canteen
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PCSCLITE_CSOCK_NAME"] = socket
        process.environment = environment
        let outputURL = folder.appendingPathComponent("canteen.out")
        let errorURL = folder.appendingPathComponent("canteen.err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOf: outputURL, encoding: .utf8),
            try String(contentsOf: errorURL, encoding: .utf8)
        )
    }

    /// Starts `canteen` with the private pcscd's socket and its stdout on a pipe, read line by line as it comes
    /// (as a kiosk agent's supervisor reads it); stderr goes to a file.
    func start(_ arguments: [String]) throws -> RunningCanteen {
        var environment = ProcessInfo.processInfo.environment
        environment["PCSCLITE_CSOCK_NAME"] = socket
        return try RunningCanteen(
            arguments: arguments, environment: environment, errorFile: folder.appendingPathComponent("running.err"))
    }

    func stop() {
        remove()
        try? input.fileHandleForWriting.close()
        daemon.waitUntilExit()
    }
}

// MARK: - RunningCanteen

/// A `canteen` process whose stdout is a pipe, read on a thread of its own: `line(within:)` gives each line as it
/// arrives, while the process runs.
final class RunningCanteen: @unchecked Sendable {
    let process = Process()
    let errorFile: URL
    private let lines = Mutex<[String]>([])
    private let arrived = DispatchSemaphore(value: 0)

    init(arguments: [String], environment: [String: String], errorFile: URL) throws {
        self.errorFile = errorFile
        process.executableURL = PrivateReader.canteen
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reading = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = []
            while case let chunk = reading.availableData, !chunk.isEmpty {  // whatever came; empty at the end
                pending += chunk
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    lines.withLock { $0.append(line) }
                    arrived.signal()
                }
            }
        }
    }

    /// The next line of stdout, waiting at most `seconds`; nil when none came.
    func line(within seconds: Double) -> String? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return lines.withLock { $0.removeFirst() }
    }

    /// What the process wrote to stderr so far.
    var errorOutput: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits at most `seconds` for the process to end; false when it still runs.
    func stop(signal: Int32 = SIGTERM, within seconds: Double) -> Bool {
        if process.isRunning { _ = kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return !process.isRunning
    }

    /// Ends the process if it still runs (a test that failed half-way).
    func end() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

struct PrivateReaderFailure: Error, CustomStringConvertible {
    var description: String
}

extension FileHandle {
    /// One line, without its newline (blocking).
    func readLine() -> String {
        var bytes: [UInt8] = []
        while let chunk = try? read(upToCount: 1), let byte = chunk.first, byte != 0x0A { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
