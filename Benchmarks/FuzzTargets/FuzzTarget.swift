import Foundation

/// The parsers Canteen runs on bytes it does not control, each as a libFuzzer target
/// (`make fuzz`, `canteen-fuzz`) and as a replay of the inputs kept in `Tests/FuzzRegressionTests`.
///
/// A target returns normally for every input. A crash, a sanitizer report or a broken invariant
/// (`FuzzCheck.require`: a decoded value that does not encode back to itself, a limit exceeded
/// after validation said yes) is a finding.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// btsnoop captures (`canteen beacons replay`): header, records, packets, sightings.
    case btsnoop
    /// HCI events and commands, LE advertising reports (legacy and extended), AD structures,
    /// iBeacon frames, H4 framing.
    case hci
    /// NFC: NDEF messages and records, Type 2/5 tag memory and TLVs, FeliCa frames, transit
    /// history, ISO 15693 frames, storage-card ATRs.
    case nfc
    /// Café files: JSON text through `CafeDocument.parse` (`canteen menus validate`, `PUT …/menu`).
    case menu
    /// `POST /v1/orders` bodies: JSON text through `OrderRequest.parse`.
    case order

    /// Runs one input through the target.
    public func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .btsnoop: BTSnoopFuzz.run(bytes)
        case .hci: HCIFuzz.run(bytes)
        case .nfc: NFCFuzz.run(Array(bytes))
        case .menu: MenuFuzz.run(bytes)
        case .order: OrderFuzz.run(bytes)
        }
    }
}

/// Invariants a target checks; a failure traps, which libFuzzer reports with the input.
enum FuzzCheck {
    static func require(
        _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line
    ) {
        if !condition() { fatalError("fuzz invariant broken: \(message())", file: file, line: line) }
    }
}
