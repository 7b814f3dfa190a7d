import CPCSC
import Dispatch
import Foundation

// MARK: - PCSCContext

/// A pcsc-lite context: lists readers and opens them. Blocking calls run on its own queue, off the cooperative
/// pool; a cancelled wait is ended with `SCardCancel`.
public final class PCSCContext: @unchecked Sendable {
    let handle: SCARDCONTEXT
    let queue = DispatchQueue(label: "canteen.pcsc", attributes: .concurrent)

    /// Connects to pcscd (the socket of `PCSCLITE_CSOCK_NAME` when set).
    public init() throws(CardReaderError) {
        var context: SCARDCONTEXT = 0
        let status = cpcsc_establish(&context)
        guard status == CPCSC_SUCCESS else {
            throw Self.error(status, "cannot reach pcscd (is it running?)", code: "reader_unavailable")
        }
        handle = context
    }

    deinit {
        _ = cpcsc_release(handle)
    }

    /// The readers' names; none when no reader is plugged in.
    public func readers() async throws(CardReaderError) -> [String] {
        try await run { [handle] () throws(CardReaderError) -> [String] in
            var length: UInt32 = 0
            var status = cpcsc_list_readers(handle, nil, &length)
            if status == CPCSC_E_NO_READERS { return [] }
            guard status == CPCSC_SUCCESS else { throw Self.error(status, "cannot list readers") }
            var buffer = [CChar](repeating: 0, count: Int(length) + 1)
            status = cpcsc_list_readers(handle, &buffer, &length)
            if status == CPCSC_E_NO_READERS { return [] }
            guard status == CPCSC_SUCCESS else { throw Self.error(status, "cannot list readers") }
            return buffer.split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
    }

    /// The reader named `name`, or the first reader when nil.
    public func reader(named name: String?) async throws(CardReaderError) -> PCSCReader {
        let names = try await readers()
        guard !names.isEmpty else {
            throw CardReaderError(code: "reader_not_found", message: "no reader is connected")
        }
        guard let name else { return PCSCReader(context: self, name: names[0]) }
        guard let match = names.first(where: { $0 == name }) ?? names.first(where: { $0.hasPrefix(name) }) else {
            throw CardReaderError(
                code: "reader_not_found",
                message: "no reader named \"\(name)\" (readers: \(names.joined(separator: ", ")))")
        }
        return PCSCReader(context: self, name: match)
    }

    // MARK: Blocking work

    /// Runs blocking PC/SC work on the context's queue; cancelling the task cancels a blocked wait.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws(CardReaderError) -> T) async throws(CardReaderError)
        -> T
    {
        let result: Result<T, CardReaderError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    do throws(CardReaderError) {
                        continuation.resume(returning: .success(try work()))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
        } onCancel: { [handle] in
            _ = cpcsc_cancel(handle)
        }
        return try result.get()
    }

    static func error(_ status: Int, _ what: String, code: String? = nil) -> CardReaderError {
        let text = String(cString: cpcsc_describe(status))
        let hex = String(UInt32(truncatingIfNeeded: status), radix: 16)
        let derived: String =
            switch status {
            case CPCSC_E_NO_SERVICE: "reader_unavailable"
            // An exchange the reader could not complete (pcsc-lite's "Transaction failed"): on a contactless
            // reader, the card left the field mid-command.
            case CPCSC_W_REMOVED_CARD, CPCSC_E_NO_SMARTCARD, CPCSC_E_NOT_TRANSACTED: "card_removed"
            case CPCSC_E_TIMEOUT: "timeout"
            case CPCSC_E_CANCELLED: "cancelled"
            case CPCSC_E_UNKNOWN_READER: "reader_not_found"
            default: "card_error"
            }
        return CardReaderError(code: code ?? derived, message: "\(what): \(text) (0x\(hex))", status: status)
    }
}
