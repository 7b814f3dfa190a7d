import Beacons
import CanteenApp
import CanteenCore
import CanteenStore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Where the beacon commands find the registry")
struct BeaconRegistrySourceTests {
    static let door = BeaconIdentity(uuid: UUID(uuidString: TestBeacons.uuid)!, major: 900, minor: 1)

    @Test("--beacons FILE overrides the database; otherwise --data-dir's database is used")
    func choosing() {
        #expect(
            BeaconRegistrySource(beaconsFile: "/tmp/b.json", dataDirectory: "./.canteen")
                == .file(URL(fileURLWithPath: "/tmp/b.json")))
        #expect(
            BeaconRegistrySource(beaconsFile: nil, dataDirectory: "/srv/canteen")
                == .database(URL(fileURLWithPath: "/srv/canteen")))
    }

    @Test("the database's registered beacons are the registry, and calibration stores the measured power there")
    func database() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let source = BeaconRegistrySource.database(directory)

        let registry = try await source.load()
        #expect(registry.beacons.count == 2)
        #expect(registry[Self.door]?.cafeID == "testcafe")
        #expect(registry[Self.door]?.measuredPower == -59)

        let (previous, updated) = try await source.storeMeasuredPower(-66, for: Self.door)
        #expect(previous.measuredPower == -59 && updated.measuredPower == -66)
        let stored = try await environment.stores.beacons.beacon(uuid: Self.door.uuid, major: 900, minor: 1)
        #expect(stored?.measuredPower == -66)
        #expect(try await source.load()[Self.door]?.measuredPower == -66)
    }

    @Test("calibrating an unregistered beacon or an impossible power stores nothing")
    func refusals() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await TestEnvironment.make(dataDirectory: directory)
        let source = BeaconRegistrySource.database(directory)
        let stranger = BeaconIdentity(uuid: Self.door.uuid, major: 900, minor: 42)
        let unknown = await #expect(throws: CanteenError.self) {
            try await source.storeMeasuredPower(-60, for: stranger)
        }
        #expect(unknown?.code == .beaconNotFound)
        let tooLow = await #expect(throws: CanteenError.self) {
            try await source.storeMeasuredPower(-128, for: Self.door)
        }
        #expect(tooLow?.code == .outOfRange)
        #expect(try await source.load()[Self.door]?.measuredPower == -59)
    }

    @Test("a data directory without a database gives an empty registry and creates nothing")
    func noDatabase() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        let registry = try await BeaconRegistrySource.database(directory).load()
        #expect(registry.beacons.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test("with --beacons FILE, calibration rewrites the file's entry")
    func file() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("beacons-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let json = """
            [{"uuid": "\(TestBeacons.uuid)", "major": 900, "minor": 1, "cafeId": "testcafe", "label": "Door", "measuredPower": -59}]
            """
        try Data(json.utf8).write(to: url)
        let source = BeaconRegistrySource.file(url)
        #expect(try await source.load()[Self.door]?.label == "Door")
        try await source.storeMeasuredPower(-70, for: Self.door)
        let reread = try BeaconRegistry(contentsOf: url)
        #expect(reread[Self.door]?.measuredPower == -70)
        #expect(reread[Self.door]?.label == "Door")
    }

    @Test("an unreadable --beacons file is a clear error")
    func badFile() async throws {
        let source = BeaconRegistrySource.file(URL(fileURLWithPath: "/nonexistent/beacons.json"))
        do {
            _ = try await source.load()
            Issue.record("loaded a missing file")
        } catch let error as CanteenError {
            #expect(error.code == .invalidBeaconFile)
        }
    }
}
