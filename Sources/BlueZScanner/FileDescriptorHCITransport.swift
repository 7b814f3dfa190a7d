import Beacons
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - FileDescriptorHCITransport

/// H4 packets over a file descriptor: a raw HCI socket (one packet per read) or any byte stream
/// (a socketpair, a UART), framed with `H4Deframer`. Owns the descriptor.
public final class FileDescriptorHCITransport: HCITransport, @unchecked Sendable {
    /// Where the event filter lives.
    public enum FilterStorage: Sendable {
        /// The kernel's `HCI_FILTER` socket option (raw HCI sockets), read and written by these calls
        /// (each returns 0, or -1 with errno set).
        case socketOption(read: @Sendable (inout HCIEventFilter) -> Int32, write: @Sendable (HCIEventFilter) -> Int32)
        /// A value held here, for transports without a kernel filter (socketpairs in tests).
        case inMemory(HCIEventFilter)
    }

    /// Read buffer size: more than the largest HCI event (260 bytes with the H4 byte).
    public static let readBufferSize = 1024

    private let fileDescriptor: Int32
    private let filterStorage: FilterStorage
    private let state: Mutex<(closed: Bool, filter: HCIEventFilter)>
    // Touched only by the single reader thread.
    private var deframer = H4Deframer()
    private var readBuffer = [UInt8](repeating: 0, count: FileDescriptorHCITransport.readBufferSize)

    private let closeDescriptor: @Sendable (Int32) -> Int32

    public init(
        fileDescriptor: Int32, filterStorage: FilterStorage,
        closeDescriptor: @escaping @Sendable (Int32) -> Int32 = { Glibc.close($0) }
    ) {
        self.fileDescriptor = fileDescriptor
        self.filterStorage = filterStorage
        self.closeDescriptor = closeDescriptor
        if case let .inMemory(filter) = filterStorage {
            state = Mutex((false, filter))
        } else {
            state = Mutex((false, HCIEventFilter()))
        }
    }

    deinit {
        close()
    }

    /// The filter held in memory (for `.inMemory` storage).
    public var inMemoryFilter: HCIEventFilter {
        state.withLock { $0.filter }
    }

    // MARK: - HCITransport

    public func receive(timeoutMilliseconds: Int32) throws(ScannerError) -> [UInt8]? {
        if let packet = try nextFramedPacket() { return packet }
        guard !isClosed else { throw .transportClosed }
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return nil }
            throw .io("poll on the HCI socket", errno: errno)
        }
        if ready == 0 { return nil }
        let count = readBuffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return nil }
            if errno == ENETDOWN {
                throw ScannerError(code: "adapter_down", message: "the adapter went down", errno: errno)
            }
            throw .io("reading from the HCI socket", errno: errno)
        }
        if count == 0 { throw .transportClosed }
        deframer.append(readBuffer[0..<count])
        return try nextFramedPacket()
    }

    public func send(_ packet: [UInt8]) throws(ScannerError) {
        guard !isClosed else { throw .transportClosed }
        var offset = 0
        while offset < packet.count {
            let written = packet.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fileDescriptor, base + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPERM || errno == EACCES { throw .notPermitted("sending HCI commands", errno: errno) }
                if errno == EBUSY { throw .busy("the adapter", errno: errno) }
                if errno == ENETDOWN {
                    throw ScannerError(code: "adapter_down", message: "the adapter is down", errno: errno)
                }
                throw .io("writing to the HCI socket", errno: errno)
            }
            offset += written
        }
    }

    public func readFilter() throws(ScannerError) -> HCIEventFilter {
        switch filterStorage {
        case .inMemory:
            return state.withLock { $0.filter }
        case let .socketOption(readSocketFilter, _):
            var filter = HCIEventFilter()
            guard readSocketFilter(&filter) == 0 else { throw .io("reading the HCI filter", errno: errno) }
            return filter
        }
    }

    public func writeFilter(_ filter: HCIEventFilter) throws(ScannerError) {
        switch filterStorage {
        case .inMemory:
            state.withLock { $0.filter = filter }
        case let .socketOption(_, writeSocketFilter):
            guard writeSocketFilter(filter) == 0 else {
                if errno == EPERM || errno == EACCES { throw .notPermitted("setting the HCI filter", errno: errno) }
                throw .io("setting the HCI filter", errno: errno)
            }
        }
    }

    public func close() {
        let wasOpen = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        if wasOpen { _ = closeDescriptor(fileDescriptor) }
    }

    // MARK: - Private

    private var isClosed: Bool { state.withLock { $0.closed } }

    private func nextFramedPacket() throws(ScannerError) -> [UInt8]? {
        do {
            return try deframer.nextPacket()
        } catch {
            throw ScannerError(code: "h4_out_of_sync", message: error.description)
        }
    }
}
