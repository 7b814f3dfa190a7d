import Beacons
import Foundation
import Logging
import ServiceLifecycle

// MARK: - BlueZScanner

/// The live iBeacon scanner: opens an HCI transport, picks extended or legacy LE scanning from the
/// controller's supported commands, turns advertising reports into sightings on `events`, and on
/// cancellation or graceful shutdown disables scanning and restores the socket's filter.
public final class BlueZScanner: Service, Sendable {
    public let configuration: ScannerConfiguration
    /// Scanner events, for one consumer; finishes when `run()` returns.
    public let events: AsyncStream<ScannerEvent>
    private let eventContinuation: AsyncStream<ScannerEvent>.Continuation
    private let openTransport: @Sendable () throws -> any HCITransport
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// A scanner over a real adapter (libbluetooth).
    public convenience init(configuration: ScannerConfiguration, logger: Logger = Logger(label: "canteen.scanner")) {
        let device = configuration.device
        self.init(configuration: configuration, logger: logger, openTransport: { try BlueZDevice.open(device) })
    }

    /// A scanner over any transport (tests pass a socketpair with a fake controller).
    public init(
        configuration: ScannerConfiguration, logger: Logger = Logger(label: "canteen.scanner"),
        clock: @escaping @Sendable () -> Date = { Date() },
        openTransport: @escaping @Sendable () throws -> any HCITransport
    ) {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        self.openTransport = openTransport
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(65_536))
    }

    // MARK: - Service

    public func run() async throws {
        defer { eventContinuation.finish() }
        let transport = try openTransport()
        defer { transport.close() }
        let recorder = try configuration.recordURL.map { try CaptureRecorder(url: $0) }
        defer { recorder?.close() }
        let channel = HCIChannel(transport: transport, recorder: recorder, clock: clock)
        let previousFilter = try transport.readFilter()
        try transport.writeFilter(.leScanning)
        channel.start()
        var mode: ScanMode?
        do {
            mode = try await startScanning(channel)
            if let mode {
                logger.info("scanning", metadata: ["mode": "\(mode.rawValue)", "active": "\(configuration.active)"])
                eventContinuation.yield(.started(mode))
            }
            for try await event in channel.events.cancelOnGracefulShutdown() {
                _ = event.bytes.withUnsafeBytes { raw in
                    IBeaconSighting.forEachSighting(inEvent: raw, time: event.time) { sighting in
                        eventContinuation.yield(.sighting(sighting))
                    }
                }
            }
        } catch {
            await shutDown(channel: channel, transport: transport, mode: mode, previousFilter: previousFilter)
            throw error
        }
        await shutDown(channel: channel, transport: transport, mode: mode, previousFilter: previousFilter)
    }

    // MARK: - Commands

    private func startScanning(_ channel: HCIChannel) async throws -> ScanMode {
        let timeout = configuration.commandTimeout
        let reply = try await channel.execute(
            HCICommand(opcode: HCIOpcode.readLocalSupportedCommands), timeout: timeout)
        let supported = SupportedCommands(octets: Array(reply.dropFirst()))
        let mode: ScanMode = supported.supportsExtendedScanning ? .extended : .legacy
        let scanType: UInt8 = configuration.active ? 0x01 : 0x00
        switch mode {
        case .extended:
            // Own address public, accept all, scan on the 1M PHY: type, interval, window.
            var parameters: [UInt8] = [0x00, 0x00, 0x01, scanType]
            parameters.appendLittleEndian(configuration.interval)
            parameters.appendLittleEndian(configuration.window)
            _ = try await channel.execute(
                HCICommand(opcode: HCIOpcode.leSetExtendedScanParameters, parameters: parameters),
                timeout: timeout)
            // Enable, duplicate filtering off, no duration, no period.
            _ = try await channel.execute(
                HCICommand(
                    opcode: HCIOpcode.leSetExtendedScanEnable,
                    parameters: [0x01, 0x00, 0x00, 0x00, 0x00, 0x00]), timeout: timeout)
        case .legacy:
            var parameters: [UInt8] = [scanType]
            parameters.appendLittleEndian(configuration.interval)
            parameters.appendLittleEndian(configuration.window)
            parameters += [0x00, 0x00]  // own address public, accept all
            _ = try await channel.execute(
                HCICommand(opcode: HCIOpcode.leSetScanParameters, parameters: parameters),
                timeout: timeout)
            // Enable, duplicate filtering off (every advertisement is an RSSI sample).
            _ = try await channel.execute(
                HCICommand(opcode: HCIOpcode.leSetScanEnable, parameters: [0x01, 0x00]),
                timeout: timeout)
        }
        return mode
    }

    /// Disables scanning (when it was enabled), restores the filter, stops the reader thread.
    private func shutDown(
        channel: HCIChannel, transport: any HCITransport, mode: ScanMode?,
        previousFilter: HCIEventFilter
    ) async {
        if let mode {
            let command =
                switch mode {
                case .extended: HCICommand(opcode: HCIOpcode.leSetExtendedScanEnable, parameters: [0, 0, 0, 0, 0, 0])
                case .legacy: HCICommand(opcode: HCIOpcode.leSetScanEnable, parameters: [0x00, 0x00])
                }
            do {
                _ = try await channel.execute(command, timeout: min(configuration.commandTimeout, 2))
            } catch {
                logger.warning("could not disable scanning", metadata: ["error": "\(error)"])
            }
        }
        await channel.stop()
        do {
            try transport.writeFilter(previousFilter)
        } catch {
            logger.warning("could not restore the HCI filter", metadata: ["error": "\(error)"])
        }
        eventContinuation.yield(.stopped)
    }
}
