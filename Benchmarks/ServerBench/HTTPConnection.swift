import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One keep-alive HTTP/1.1 connection over a blocking loopback socket, used by one thread.
final class HTTPConnection {
    /// A parsed response: status, body and the `ETag` header.
    struct Response {
        let status: Int
        let body: [UInt8]
        var etag: String? = nil
    }

    private let socket: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    /// Connects to 127.0.0.1:`port` with TCP_NODELAY; reads time out after `timeout` seconds.
    init(port: Int, timeout: Int = 40) throws(BenchError) {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket", "socket(): errno \(errno)") }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
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
            close(socket)
            throw BenchError("connect", "connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(socket) }

    /// The socket, for `shutDown(descriptor:)` from another thread.
    var descriptor: Int32 { socket }

    /// Wakes a thread blocked reading the connection of `descriptor` (its read then fails).
    static func shutDown(descriptor: Int32) { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }

    // MARK: - Exchange

    /// Sends one request and reads its response.
    func exchange(_ request: [UInt8]) throws(BenchError) -> Response {
        try send(request)
        return try readResponse()
    }

    func send(_ request: [UInt8]) throws(BenchError) {
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw BenchError("send", "send: errno \(errno)") }
            sent += count
        }
    }

    /// Reads one response. The head is parsed as bytes, keeping only the status and the two
    /// headers that frame the body: this client shares the two cores with the server, so its
    /// own cost per request lowers every figure it reports.
    func readResponse() throws(BenchError) -> Response {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let headerEnd = try readUntilHeaderEnd()
        let head = buffer[start..<headerEnd]
        start = headerEnd + 4
        // "HTTP/1.1 200 OK": three digits after the first space.
        guard let space = head.firstIndex(of: UInt8(ascii: " ")), space + 3 < head.endIndex,
            let status = Self.decimal(head[(space + 1)..<(space + 4)])
        else {
            throw BenchError(
                "bad_response", "unparseable status line '\(String(decoding: head.prefix(80), as: UTF8.self))'")
        }
        var contentLength = 0
        var chunked = false
        var etag: String?
        var lineStart = head.startIndex
        for index in head.indices where head[index] == 10 || index == head.endIndex - 1 {
            let line = head[lineStart...index]
            lineStart = index + 1
            if let value = Self.value(of: "content-length", in: line) {
                guard let length = Self.decimal(value) else { throw BenchError("bad_response", "bad content-length") }
                contentLength = length
            } else if let value = Self.value(of: "transfer-encoding", in: line) {
                chunked = String(decoding: value, as: UTF8.self).lowercased().contains("chunked")
            } else if let value = Self.value(of: "etag", in: line) {
                etag = String(decoding: value, as: UTF8.self)
            }
        }
        if status == 304 || status == 204 || (100..<200).contains(status) {
            return Response(status: status, body: [], etag: etag)
        }
        if chunked { return Response(status: status, body: try readChunkedBody(), etag: etag) }
        return Response(status: status, body: try take(contentLength), etag: etag)
    }

    /// The value of a header line `Name: value` when its name is `name` (lower case), without
    /// surrounding white space or line ends.
    private static func value(of name: StaticString, in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[line.startIndex + count] == UInt8(ascii: ":") else { return nil }
        for offset in 0..<count where line[line.startIndex + offset] | 0x20 != name.utf8Start[offset] { return nil }
        var value = line[(line.startIndex + count + 1)...]
        while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
        while let last = value.last, last == 32 || last == 9 || last == 13 || last == 10 { value = value.dropLast() }
        return value
    }

    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for digit in digits {
            guard (48...57).contains(digit) else { return nil }
            value = value * 10 + Int(digit - 48)
        }
        return value
    }

    // MARK: - Buffer

    private func fill() throws(BenchError) {
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, $0.count, 0) }
        guard count > 0 else {
            throw BenchError("recv", count == 0 ? "connection closed by the server" : "recv: errno \(errno)")
        }
        buffer.append(contentsOf: chunk[0..<count])
    }

    private func readUntilHeaderEnd() throws(BenchError) -> Int {
        var searchFrom = start
        while true {
            if buffer.count - searchFrom >= 4 {
                for index in searchFrom...(buffer.count - 4)
                where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13
                    && buffer[index + 3] == 10
                {
                    return index
                }
                searchFrom = buffer.count - 3
            }
            try fill()
        }
    }

    private func take(_ length: Int) throws(BenchError) -> [UInt8] {
        while buffer.count - start < length { try fill() }
        let body = Array(buffer[start..<(start + length)])
        start += length
        return body
    }

    private func readLine() throws(BenchError) -> String {
        while true {
            if buffer.count - start >= 2 {
                for index in start...(buffer.count - 2) where buffer[index] == 13 && buffer[index + 1] == 10 {
                    let line = String(decoding: buffer[start..<index], as: UTF8.self)
                    start = index + 2
                    return line
                }
            }
            try fill()
        }
    }

    private func readChunkedBody() throws(BenchError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeText = try readLine().split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.filter { $0 != " " && $0 != "\t" }, radix: 16), size >= 0 else {
                throw BenchError("bad_response", "bad chunk size '\(sizeText)'")
            }
            if size == 0 {
                while try !readLine().isEmpty {}
                return body
            }
            body += try take(size)
            _ = try readLine()
        }
    }
}
