import Foundation
import Logging
import Synchronization
import Testing

@testable import CanteenAPI

#if canImport(Glibc)
    import Glibc
#endif

/// The default log format (`TextLogHandler`) and where every line goes (`LogOutput`), read back
/// through a real pipe.
@Suite("Text log lines and the log output")
struct TextLogHandlerTests {
    /// A pipe whose read end is drained on a thread of its own (a full pipe would block the writers).
    final class PipeReader: @unchecked Sendable {
        let pipe = Pipe()
        private let bytes = Mutex(Data())
        private let done = DispatchSemaphore(value: 0)

        init() {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes.withLock { $0.append(chunk) }
                }
                done.signal()
            }
        }

        var output: LogOutput { LogOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor) }

        /// Closes the write end and returns every line read.
        func lines() -> [String] {
            try? pipe.fileHandleForWriting.close()
            done.wait()
            return String(decoding: bytes.withLock { $0 }, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    @Test(
        "a line reads as swift-log's StreamLogHandler writes it: time, level, label, sorted metadata, source, message")
    func format() throws {
        let reader = PipeReader()
        var handler = TextLogHandler(label: "canteen", output: reader.output)
        handler[metadataKey: "zone"] = "server"
        var logger = Logger(label: "canteen", factory: { _ in handler })
        logger.logLevel = .info
        logger.info("request", metadata: ["status": "200", "method": "GET"], source: "CanteenAPI")
        logger.debug("not written at info")
        logger.notice("no metadata of its own", source: "CanteenApp")
        let lines = reader.lines()
        #expect(lines.count == 2)
        let pattern = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4} (.*)$/#
        let first = try #require(lines.first.flatMap { try? pattern.wholeMatch(in: $0) })
        #expect(first.1 == "info canteen: method=GET status=200 zone=server [CanteenAPI] request")
        let second = try #require(lines.last.flatMap { try? pattern.wholeMatch(in: $0) })
        #expect(second.1 == "notice canteen: zone=server [CanteenApp] no metadata of its own")
    }

    struct Refusal: Error, CustomStringConvertible {
        var description: String { "the receiver closed the connection" }
    }

    @Test(
        "text and JSON lines carry the same metadata: the provider's, the line's, and a logged error's message and type"
    )
    func sameMetadataBothFormats() throws {
        let provider = Logger.MetadataProvider { ["request_id": "r-1"] }
        let event = LogEvent(
            level: .warning, message: "delivery failed", error: Refusal(), metadata: ["endpoint": "whk_1"],
            source: "CanteenNotify", file: #fileID, function: #function, line: #line)
        let text = PipeReader()
        TextLogHandler(label: "canteen", metadataProvider: provider, output: text.output).log(event: event)
        let json = PipeReader()
        JSONLogHandler(label: "canteen", metadataProvider: provider, output: json.output).log(event: event)

        let line = try #require(text.lines().first)
        #expect(
            line.hasSuffix(
                "warning canteen: endpoint=whk_1 error.message=the receiver closed the connection "
                    + "error.type=CanteenAPITests.TextLogHandlerTests.Refusal request_id=r-1 "
                    + "[CanteenNotify] delivery failed"), "\(line)")
        let jsonLine = try #require(json.lines().first)
        let object = try #require(JSONSerialization.jsonObject(with: Data(jsonLine.utf8)) as? [String: Any])
        #expect(object["request_id"] as? String == "r-1")
        #expect(object["endpoint"] as? String == "whk_1")
        #expect(object["error.message"] as? String == "the receiver closed the connection")
        #expect(object["error.type"] as? String == "CanteenAPITests.TextLogHandlerTests.Refusal")
    }

    @Test("a request line's duration is milliseconds to two decimals, rounded, as %.2f wrote it")
    func duration() {
        let second: Int64 = 1_000_000_000_000_000_000
        #expect(APIMiddleware.milliseconds(seconds: 0, attoseconds: 0) == "0.00")
        #expect(APIMiddleware.milliseconds(seconds: 0, attoseconds: second / 1000 * 49 / 10) == "4.90")
        #expect(APIMiddleware.milliseconds(seconds: 0, attoseconds: 12_345_000_000_000_000) == "12.35")
        #expect(APIMiddleware.milliseconds(seconds: 0, attoseconds: 12_344_999_000_000_000) == "12.34")
        #expect(APIMiddleware.milliseconds(seconds: 0, attoseconds: 70_000_000_000_000) == "0.07")
        #expect(APIMiddleware.milliseconds(seconds: 3, attoseconds: 999_999_000_000_000_000) == "4000.00")
        #expect(APIMiddleware.milliseconds(seconds: 61, attoseconds: 500_000_000_000_000) == "61000.50")
    }

    @Test("lines logged at once from many threads arrive whole, none lost, each thread's in its order")
    func concurrent() throws {
        let reader = PipeReader()
        let output = reader.output
        let threads = 8
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                output.write("thread \(thread) line \(index) \(String(repeating: "x", count: index % 300))\n")
            }
        }
        output.flush()
        let lines = reader.lines()
        #expect(lines.count == threads * perThread)
        var next = Array(repeating: 0, count: threads)
        for line in lines {
            let words = line.split(separator: " ")
            guard words.count >= 4, let thread = Int(words[1]), let index = Int(words[3]), next.indices.contains(thread)
            else {
                Issue.record("a line came apart: \(line.prefix(80))")
                return
            }
            #expect(index == next[thread], "thread \(thread)'s lines out of order")
            #expect(words.count == 4 ? index % 300 == 0 : words[4].count == index % 300)
            next[thread] = index + 1
        }
        #expect(next == Array(repeating: perThread, count: threads))
    }

    @Test("a reader that stalls holds the writers back past the limit and loses nothing once it reads again")
    func stalledReader() throws {
        let pipe = Pipe()
        let output = LogOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor, limit: 4096)
        let line = String(repeating: "y", count: 99) + "\n"
        let lines = 3_000  // 300 KB: more than a pipe and the limit hold
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<lines { output.write(line) }
            output.flush()
            finished.signal()
        }
        // Nobody reads: the writers wait.
        #expect(finished.wait(timeout: .now() + 0.5) == .timedOut)
        var received = 0
        let handle = pipe.fileHandleForReading
        while received < lines * line.utf8.count {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            received += chunk.count
        }
        #expect(received == lines * line.utf8.count)
        #expect(finished.wait(timeout: .now() + 30) == .success)
    }
}
