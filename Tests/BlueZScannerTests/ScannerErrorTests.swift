import Testing

@testable import BlueZScanner

@Suite("the scanner's errors say what is there and what to do")
struct ScannerErrorTests {
    @Test("an adapter that does not exist is reported with the adapters the kernel knows, down ones marked")
    func noAdapterListsAdapters() {
        let error = ScannerError.noAdapter("hci7", errno: 19, adapters: ["hci0", "hci1", "hci2 (down)"])
        #expect(error.code == "no_adapter")
        #expect(
            error.message == "no Bluetooth adapter named hci7 (adapters here: hci0, hci1, hci2 (down); "
                + "see `btmgmt info` or `hciconfig`)")
    }

    @Test("with no adapter at all it says the machine has none; when they cannot be listed it says only where to look")
    func noAdapterWithoutList() {
        #expect(
            ScannerError.noAdapter("hci0", errno: 19, adapters: []).message
                == "no Bluetooth adapter named hci0 (this machine has none; see `btmgmt info` or `hciconfig`)")
        #expect(
            ScannerError.noAdapter(nil, errno: 19).message
                == "no Bluetooth adapter found (see `btmgmt info` or `hciconfig`)")
    }
}
