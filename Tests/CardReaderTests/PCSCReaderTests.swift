import CardReader
import Foundation
import Testing

/// The PC/SC layer in-process, against a private pcscd (the only test in this process that talks to pcscd
/// itself: pcsc-lite reads `PCSCLITE_CSOCK_NAME` once per process).
@Suite("PC/SC reader in-process")
struct PCSCReaderTests {
    @Test(
        "readers are listed (an unknown name is reader_not_found), a tap is seen, and a wait for a card that never comes is cancelled cleanly"
    )
    func tapAndCancel() async throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        setenv("PCSCLITE_CSOCK_NAME", reader.socket, 1)
        let context = try PCSCContext()
        #expect(try await context.readers() == ["Virtual PCD 00 00", "Virtual PCD 00 01"])
        let unknown = await #expect(throws: CardReaderError.self) { try await context.reader(named: "ACS ACR122U") }
        #expect(unknown?.code == "reader_not_found")
        #expect(unknown?.message.contains("Virtual PCD 00 00") == true)
        let device = try await context.reader(named: "Virtual PCD 00 00")
        #expect(try await device.waitForCard(timeout: 0.3) == false)

        let waiting = Task { try await device.waitForCard(timeout: nil) }
        try await Task.sleep(for: .milliseconds(300))
        waiting.cancel()
        let error = await #expect(throws: CardReaderError.self) { try await waiting.value }
        #expect(error?.code == "cancelled")

        try reader.tap("felica")
        #expect(try await device.waitForCard(timeout: 5))
        let card = try await device.connect()
        #expect(try await card.identifier() == [0x01, 0x01, 0x06, 0x01, 0xCA, 0x0B, 0x4E, 0x21])
        reader.remove()
        #expect(try await device.waitForRemoval(timeout: 5))
        let gone = await #expect(throws: CardReaderError.self) { try await card.identifier() }
        #expect(gone?.code == "card_removed" || gone?.code == "card_error")
    }
}
