import Beacons
import Foundation

// beacons-fuzz: feeds arbitrary bytes to every Beacons parser.
//
// With libFuzzer (coverage-guided):
//   swift build -c release --product beacons-fuzz --scratch-path .build-fuzz \
//       -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld   (gold crashes on it)
//   .build-fuzz/release/beacons-fuzz -max_total_time=60 [CORPUS_DIR]
// Without it (a plain build), it runs the given files through the same code, to replay a crash.

/// One input through every parser; a crash or sanitizer report is a bug.
func exercise(_ bytes: UnsafeRawBufferPointer) {
    let array = Array(bytes)
    _ = IBeaconSighting.forEachSighting(inEvent: bytes, time: Date(timeIntervalSince1970: 0)) { _ in }
    _ = AdvertisingReport.reports(inEvent: array)
    _ = HCIEvent(bytes: array)
    _ = HCICommand(bytes: array)
    _ = IBeacon.parse(advertisingData: bytes)
    _ = AdvertisingData.structures(in: array)
    var deframer = H4Deframer()
    deframer.append(array)
    while let packet = try? deframer.nextPacket() { _ = packet }
    // As a capture: the bytes after a valid header, for each datalink.
    for datalink in BTSnoopDatalink.allCases {
        if let reader = try? BTSnoopReader(bytes: BTSnoopWriter.header(datalink: datalink) + array) {
            _ = reader.sightings()
        }
    }
    _ = try? BTSnoopReader(bytes: array).sightings()
}

#if FUZZING
    typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: FuzzCallback
    ) -> Int32

    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = runFuzzerDriver(&argc, &argv) { data, size in
        exercise(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
        return 0
    }
    exit(status)
#else
    for path in CommandLine.arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
            exit(1)
        }
        data.withUnsafeBytes { exercise($0) }
        print("\(path): ok")
    }
#endif
