// MARK: - HCITransport

/// The scanner's I/O with a controller: whole H4 packets in and out, and the socket's event filter.
/// The real one wraps a libbluetooth HCI socket; tests use a socketpair with a fake controller.
public protocol HCITransport: AnyObject, Sendable {
    /// Waits up to `timeoutMilliseconds` for the next whole packet (H4 indicator first); nil on timeout.
    /// Called from one reader thread only; blocks that thread.
    func receive(timeoutMilliseconds: Int32) throws(ScannerError) -> [UInt8]?
    /// Sends one whole packet (H4 indicator first).
    func send(_ packet: [UInt8]) throws(ScannerError)
    /// The socket's current event filter.
    func readFilter() throws(ScannerError) -> HCIEventFilter
    /// Replaces the socket's event filter.
    func writeFilter(_ filter: HCIEventFilter) throws(ScannerError)
    /// Closes the connection; later calls fail.
    func close()
}
