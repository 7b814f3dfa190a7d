import Beacons
import BlueZScanner
import Foundation
import Logging
import ServiceLifecycle
import Testing

@Suite("the scanner as a service")
struct GracefulShutdownTests {
    @Test("a service group's graceful shutdown ends run(), disables scanning and restores the filter")
    func gracefulShutdown() async throws {
        let original = HCIEventFilter(typeMask: 0xABCD)
        let scenario = TraceScenario.walk(seed: 3, spacing: 4, speed: 4, linger: 0)
        let event = TraceGenerator.advertisingReportEvent(Array(scenario.generator.sightings().prefix(2)))
        let controller = FakeController(
            .init(extendedScanning: true, advertisingEvents: [event]), initialFilter: original)
        let transport = controller.transport
        let scanner = BlueZScanner(configuration: ScannerConfiguration(), openTransport: { transport })
        let group = ServiceGroup(services: [scanner], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var sightings = 0
            for await scannerEvent in scanner.events {
                if case .sighting = scannerEvent {
                    sightings += 1
                    if sightings == 2 { await group.triggerGracefulShutdown() }
                }
            }
            try await tasks.waitForAll()
        }
        await controller.waitUntilDisconnected()
        let last = try #require(controller.commands.last)
        #expect(last.opcode == HCIOpcode.leSetExtendedScanEnable && last.parameters.first == 0x00)
        #expect(transport.inMemoryFilter == original)
    }
}
