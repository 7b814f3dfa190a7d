import Beacons
import BlueZScanner
import Foundation
import Testing

@Suite("the scanner's event loop against a fake controller over a socketpair")
struct BlueZScannerTests {
    static let scenario = TraceScenario.walk(seed: 11, spacing: 6, speed: 3, linger: 0)

    /// Advertising events (no H4 byte) and the sightings the generator put in them: the ground
    /// truth, not what the parser reads back, so a parser that dropped reports would show here.
    static func advertising(extended: Bool) throws -> (events: [[UInt8]], sightings: [IBeaconSighting]) {
        var generator = scenario.generator
        generator.extendedReports = extended
        generator.reportsPerEvent = 2
        let reader = try BTSnoopReader(bytes: generator.capture(datalink: .hciUART))
        let events = reader.packets().packets.map(\.payload)
        return (events, generator.sightings())
    }

    /// Runs the scanner until it has reported `count` sightings, then cancels it.
    static func scan(
        _ controller: FakeController, configuration: ScannerConfiguration = ScannerConfiguration(),
        count: Int
    ) async throws -> (events: [ScannerEvent], error: (any Error)?) {
        let transport = controller.transport
        let scanner = BlueZScanner(configuration: configuration, openTransport: { transport })
        let run = Task { try await scanner.run() }
        var events: [ScannerEvent] = []
        var sightings = 0
        for await event in scanner.events {
            events.append(event)
            if case .sighting = event { sightings += 1 }
            if sightings == count { run.cancel() }
        }
        do {
            try await run.value
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    static func sightings(_ events: [ScannerEvent]) -> [IBeaconSighting] {
        events.compactMap { if case let .sighting(sighting) = $0 { sighting } else { nil } }
    }

    @Test("a controller with the extended commands is scanned with LE Set Extended Scan Parameters/Enable")
    func extendedChosen() async throws {
        let (advertising, expected) = try Self.advertising(extended: true)
        let controller = FakeController(.init(extendedScanning: true, advertisingEvents: advertising))
        let (events, error) = try await Self.scan(controller, count: expected.count)
        #expect(error == nil)
        #expect(events.first == .started(.extended))
        #expect(events.last == .stopped)
        #expect(Self.sightings(events).map(\.identity) == expected.map(\.identity))
        #expect(Self.sightings(events).map(\.rssi) == expected.map(\.rssi))
        await controller.waitUntilDisconnected()
        let opcodes = controller.commands.map(\.opcode)
        #expect(
            opcodes == [
                HCIOpcode.readLocalSupportedCommands, HCIOpcode.leSetExtendedScanParameters,
                HCIOpcode.leSetExtendedScanEnable, HCIOpcode.leSetExtendedScanEnable,
            ])
        let enable = try #require(controller.commands.dropLast().last)
        #expect(enable.parameters.prefix(2) == [0x01, 0x00], "enabled with duplicate filtering off")
        #expect(controller.commands.last?.parameters.first == 0x00, "disabled on shutdown")
    }

    @Test("a controller without them is scanned with the legacy commands, passively when asked")
    func legacyChosen() async throws {
        let (advertising, expected) = try Self.advertising(extended: false)
        let controller = FakeController(.init(extendedScanning: false, advertisingEvents: advertising))
        let (events, error) = try await Self.scan(
            controller, configuration: ScannerConfiguration(active: false),
            count: expected.count)
        #expect(error == nil)
        #expect(events.first == .started(.legacy))
        #expect(Self.sightings(events).map(\.identity) == expected.map(\.identity))
        #expect(Self.sightings(events).map(\.rssi) == expected.map(\.rssi))
        #expect(Self.sightings(events).map(\.address) == expected.map(\.address))
        await controller.waitUntilDisconnected()
        let commands = controller.commands
        #expect(
            commands.map(\.opcode) == [
                HCIOpcode.readLocalSupportedCommands, HCIOpcode.leSetScanParameters,
                HCIOpcode.leSetScanEnable, HCIOpcode.leSetScanEnable,
            ])
        #expect(commands[1].parameters.first == 0x00, "passive scan type")
        #expect(commands[2].parameters == [0x01, 0x00])
        #expect(commands[3].parameters == [0x00, 0x00])
    }

    @Test("shutdown restores the socket's previous filter; the LE filter is set while scanning")
    func filterRestored() async throws {
        let original = HCIEventFilter(typeMask: 0x1234, eventMask0: 5, eventMask1: 6, opcode: 7)
        let (advertising, _) = try Self.advertising(extended: true)
        let controller = FakeController(
            .init(extendedScanning: true, advertisingEvents: Array(advertising.prefix(1))),
            initialFilter: original)
        let transport = controller.transport
        let scanner = BlueZScanner(configuration: ScannerConfiguration(), openTransport: { transport })
        let run = Task { try await scanner.run() }
        for await event in scanner.events {
            if case .sighting = event {
                #expect(transport.inMemoryFilter == .leScanning)
                run.cancel()
            }
        }
        try await run.value
        #expect(transport.inMemoryFilter == original)
    }

    @Test("Command Disallowed on enabling surfaces as a clear error with its HCI status, filter restored")
    func commandDisallowed() async throws {
        let original = HCIEventFilter(typeMask: 0x10)
        let controller = FakeController(
            .init(extendedScanning: false, failingStatus: [HCIOpcode.leSetScanEnable: 0x0C]),
            initialFilter: original)
        let (events, error) = try await Self.scan(controller, count: 1)
        let scannerError = try #require(error as? ScannerError)
        #expect(scannerError.code == "command_failed")
        #expect(scannerError.hciStatus == 0x0C)
        #expect(scannerError.opcode == HCIOpcode.leSetScanEnable)
        #expect(scannerError.message.contains("Command Disallowed"))
        #expect(scannerError.message.contains("0x0C"))
        #expect(!events.contains(.started(.legacy)))
        #expect(controller.transport.inMemoryFilter == original)
    }

    @Test("recording to btsnoop 1002 and replaying it gives the same sightings")
    func recordAndReplay() async throws {
        let (advertising, expected) = try Self.advertising(extended: false)
        let controller = FakeController(.init(extendedScanning: false, advertisingEvents: advertising))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scanner-\(UUID().uuidString).btsnoop")
        defer { try? FileManager.default.removeItem(at: url) }
        let (events, error) = try await Self.scan(
            controller, configuration: ScannerConfiguration(recordURL: url),
            count: expected.count)
        #expect(error == nil)
        let reader = try BTSnoopReader(contentsOf: url)
        #expect(reader.datalink == .hciUART)
        let (replayed, summary) = reader.sightings()
        #expect(summary.warning == nil)
        let live = Self.sightings(events)
        #expect(replayed.map(\.identity) == live.map(\.identity))
        #expect(replayed.map(\.rssi) == live.map(\.rssi))
        #expect(replayed.map(\.address) == live.map(\.address))
        let replayedTimes = replayed.map { ($0.time.timeIntervalSince1970 * 1e6).rounded() }
        let liveTimes = live.map { ($0.time.timeIntervalSince1970 * 1e6).rounded() }
        #expect(replayedTimes == liveTimes)
        let commands = reader.packets().packets.filter { $0.type == .command && $0.direction == .sent }
        #expect(commands.count == 4)
    }

    @Test("an adapter that cannot be opened is reported with its code")
    func openFailure() async {
        let scanner = BlueZScanner(
            configuration: ScannerConfiguration(),
            openTransport: {
                throw ScannerError(code: "no_adapter", message: "no Bluetooth adapter found")
            })
        await #expect(throws: ScannerError.self) { try await scanner.run() }
    }
}
