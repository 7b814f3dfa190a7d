import Beacons
import BlueZScanner
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - FakeController

/// The controller end of a socketpair: answers HCI commands like a controller would and, once
/// scanning is enabled, sends the advertising events it was given. Runs on its own thread.
final class FakeController: Sendable {
    /// What the fake answers to each command: a Command Complete with status 0 unless told otherwise.
    struct Behaviour: Sendable {
        var extendedScanning: Bool
        /// Statuses to answer specific opcodes with (0x0C Command Disallowed, say).
        var failingStatus: [UInt16: UInt8] = [:]
        /// Advertising events (no H4 byte) to send once scanning is enabled.
        var advertisingEvents: [[UInt8]] = []
    }

    let transport: FileDescriptorHCITransport
    private let fileDescriptor: Int32
    private let behaviour: Behaviour
    private let received = Mutex<[HCICommand]>([])
    private let finished = DispatchSemaphore(value: 0)

    /// Every command the scanner sent, in order.
    var commands: [HCICommand] { received.withLock { $0 } }

    /// A socketpair: the scanner's transport (with an in-memory filter) and the fake on the other end.
    init(_ behaviour: Behaviour, initialFilter: HCIEventFilter = HCIEventFilter(typeMask: 0xFFFF_FFFF)) {
        var descriptors: [Int32] = [0, 0]
        let created = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors)
        precondition(created == 0, "socketpair failed")
        transport = FileDescriptorHCITransport(fileDescriptor: descriptors[0], filterStorage: .inMemory(initialFilter))
        fileDescriptor = descriptors[1]
        self.behaviour = behaviour
        let thread = Thread { [self] in
            serve()
            finished.signal()
        }
        thread.start()
    }

    /// Waits until the scanner side closed its end.
    func waitUntilDisconnected() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [finished] in
                finished.wait()
                done.resume()
            }
        }
    }

    // MARK: - Serving

    private func serve() {
        var deframer = H4Deframer()
        var buffer = [UInt8](repeating: 0, count: 512)
        defer { close(fileDescriptor) }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            deframer.append(buffer[0..<count])
            while let packet = try? deframer.nextPacket() {
                guard packet.first == H4PacketType.command.rawValue,
                    let command = HCICommand(bytes: Array(packet.dropFirst()))
                else { continue }
                received.withLock { $0.append(command) }
                answer(command)
            }
        }
    }

    private func answer(_ command: HCICommand) {
        if let status = behaviour.failingStatus[command.opcode] {
            send(HCIEvent.commandComplete(opcode: command.opcode, returnParameters: [status]).bytes)
            return
        }
        switch command.opcode {
        case HCIOpcode.readLocalSupportedCommands:
            let bitmap = SupportedCommands.bitmap(extendedScanning: behaviour.extendedScanning).octets
            send(HCIEvent.commandComplete(opcode: command.opcode, returnParameters: [0] + bitmap).bytes)
        case HCIOpcode.leSetScanEnable, HCIOpcode.leSetExtendedScanEnable:
            send(HCIEvent.commandComplete(opcode: command.opcode, returnParameters: [0]).bytes)
            if command.parameters.first == 1 {
                for event in behaviour.advertisingEvents { send(event) }
            }
        default:
            send(HCIEvent.commandComplete(opcode: command.opcode, returnParameters: [0]).bytes)
        }
    }

    private func send(_ event: [UInt8]) {
        let packet = [H4PacketType.event.rawValue] + event
        _ = packet.withUnsafeBytes { write(fileDescriptor, $0.baseAddress, $0.count) }
    }
}
