import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain HTTP/1.1 client over one loopback socket, for tests that need what HTTP clients hide:
/// half a request, a half-closed socket, a chunked body, seeing the server close.
public final class RawHTTP: @unchecked Sendable {
    /// One response: status, headers (names lower-cased) and body.
    public struct Response: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: Data
        /// The status line, and the header lines as sent (names as written, in order).
        public var statusLine = ""
        public var fields: [Field] = []

        /// One header line.
        public struct Field: Sendable, Equatable, CustomStringConvertible {
            public let name: String
            public let value: String
            public var description: String { "\(name): \(value)" }
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
        /// `error.code` of a JSON error body.
        public var errorCode: String? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let error = object["error"] as? [String: Any]
            else { return nil }
            return error["code"] as? String
        }
        public var json: Any? { try? JSONSerialization.jsonObject(with: body) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    private let socket: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds.
    public init(port: Int, timeout: Double = 30) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket(): errno \(errno)") }
        setTimeout(timeout)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(socket)
            throw Failure(description: "connect to 127.0.0.1:\(port): errno \(code)")
        }
    }

    deinit { close(socket) }

    /// A loopback port that was free a moment ago (for a process that must come up later at a
    /// known URL).
    public static func freePort() throws -> Int {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket(): errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// How long a read waits before failing.
    public func setTimeout(_ seconds: Double) {
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    // MARK: - Sending

    /// Sends bytes as they are; false when the server has closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Closes the sending side (the server reads end of file).
    public func finishSending() { Glibc.shutdown(socket, Int32(SHUT_WR)) }

    /// A whole request: `Content-Length` added for a body, `Host` always.
    public static func request(
        _ method: String, _ path: String, headers: [(String, String)] = [],
        body: String? = nil
    ) -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body {
            text += "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        } else {
            text += "\r\n"
        }
        return text
    }

    /// Sends a request and reads its response.
    public func exchange(
        _ method: String, _ path: String, headers: [(String, String)] = [],
        body: String? = nil
    ) throws -> Response {
        guard send(Self.request(method, path, headers: headers, body: body)) else {
            throw Failure(description: "the server closed the connection before the request was sent")
        }
        return try readResponse()
    }

    // MARK: - Receiving

    /// Reads one response (Content-Length or chunked body; none when `bodiless`, as for HEAD).
    public func readResponse(bodiless: Bool = false) throws -> Response {
        let headEnd = try readUntil { $0.firstRange(of: [13, 10, 13, 10])?.lowerBound }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let firstLine = lines.removeFirst()
        let statusLine = firstLine.split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "not an HTTP response: \(head.prefix(80))")
        }
        var headers: [String: String] = [:]
        var fields: [Response.Field] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[line[..<colon].lowercased()] = value
            fields.append(Response.Field(name: String(line[..<colon]), value: value))
        }
        var body: [UInt8] = []
        if bodiless {
            // A HEAD's answer: its framing headers describe the GET's body, which is not sent.
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let lineEnd = try readUntil { $0.firstRange(of: [13, 10])?.lowerBound }
                let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self).split(separator: ";")[0]
                buffer.removeFirst(lineEnd + 2)
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                    throw Failure(description: "bad chunk size '\(sizeText)'")
                }
                _ = try readUntil { $0.count >= size + 2 ? size : nil }
                body += buffer[..<size]
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else if let length = headers["content-length"].flatMap(Int.init) {
            _ = try readUntil { $0.count >= length ? length : nil }
            body = Array(buffer[..<length])
            buffer.removeFirst(length)
        }
        var response = Response(status: status, headers: headers, body: Data(body))
        response.statusLine = firstLine
        response.fields = fields
        return response
    }

    /// Whether the server closed the connection: true on end of file (or a reset), false when
    /// the read timed out with the connection still open. Bytes that arrive are skipped.
    public func waitForClose() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, $0.count, 0) }
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }

    private func readUntil(_ found: ([UInt8]) -> Int?) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let index = found(buffer) { return index }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, $0.count, 0) }
            if count == 0 { throw Failure(description: "the server closed the connection") }
            if count < 0 { throw Failure(description: errno == EAGAIN ? "the read timed out" : "recv: errno \(errno)") }
            buffer += chunk[..<count]
        }
    }
}
