import Beacons
import Foundation
import Synchronization

// MARK: - CaptureRecorder

/// Appends the packets the scanner sends and reads to a btsnoop file (datalink 1002).
public final class CaptureRecorder: Sendable {
    private let handle: Mutex<FileHandle?>
    public let url: URL

    /// Creates (or truncates) the file and writes the btsnoop header.
    public init(url: URL) throws {
        self.url = url
        guard FileManager.default.createFile(atPath: url.path, contents: Data(BTSnoopWriter.header(datalink: .hciUART)))
        else {
            throw ScannerError(code: "record_failed", message: "cannot create the capture file \(url.path)")
        }
        handle = Mutex(try FileHandle(forWritingTo: url))
        _ = try handle.withLock { try $0?.seekToEnd() }
    }

    /// Appends one packet (H4 indicator first).
    public func record(_ packet: [UInt8], direction: PacketDirection, at date: Date) {
        guard let first = packet.first, let type = H4PacketType(rawValue: first) else { return }
        var record: [UInt8] = []
        BTSnoopWriter.appendRecord(
            to: &record, datalink: .hciUART, type: type, direction: direction,
            timestamp: BTSnoopWriter.timestamp(for: date), payload: Array(packet.dropFirst()))
        handle.withLock { try? $0?.write(contentsOf: Data(record)) }
    }

    /// Flushes and closes the file.
    public func close() {
        handle.withLock { handle in
            try? handle?.synchronize()
            try? handle?.close()
            handle = nil
        }
    }
}
