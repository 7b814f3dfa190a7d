import Foundation
import FuzzTargets

// canteen-fuzz: the parsers of untrusted bytes under libFuzzer (`make fuzz` runs each target).
//
//   swift build -c release --product canteen-fuzz --scratch-path .build-fuzz \
//       -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
//   CANTEEN_FUZZ_TARGET=order .build-fuzz/release/canteen-fuzz -max_total_time=60 CORPUS_DIR SEED_DIR
//
// Targets: btsnoop, hci, nfc, menu, order. Without -DFUZZING (a plain build) it runs the
// given files through the target, to replay a finding: `canteen-fuzz TARGET FILE...`.

#if FUZZING
    typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: FuzzCallback
    ) -> Int32

    let targetName = ProcessInfo.processInfo.environment["CANTEEN_FUZZ_TARGET"] ?? ""
    guard let selected = FuzzTarget(rawValue: targetName) else {
        FileHandle.standardError.write(
            Data("set CANTEEN_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue))\n".utf8))
        exit(2)
    }
    nonisolated(unsafe) let target = selected
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = runFuzzerDriver(&argc, &argv) { data, size in
        target.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
        return 0
    }
    exit(status)
#else
    let arguments = CommandLine.arguments.dropFirst()
    guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
        FileHandle.standardError.write(
            Data("usage: canteen-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE...\n".utf8))
        exit(2)
    }
    for path in arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
            exit(1)
        }
        data.withUnsafeBytes { target.run($0) }
        print("\(path): ok")
    }
#endif
