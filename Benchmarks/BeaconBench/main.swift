import Beacons
import BenchFigures
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// beacon-bench: parse → iBeacon → ranging throughput on one core, over a generated capture.
//
//   swift run -c release beacon-bench [--reports N] [--per-event K] [--runs R] [--write FILE]
//
// The capture: 10 cafés' beacons 10 m apart, a device walking past them (TraceGenerator's
// path-loss + noise model), datalink 2001, K reports per LE Advertising Report event (default 1,
// as most controllers send). Timed: reading the btsnoop records, parsing every event and report,
// recognising the iBeacon, and the ranging engine (smoothing, distance, regions, nearest café).

// MARK: - Arguments

var reportCount = 1_000_000
var perEvent = 1
var runs = 5
var writePath: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--reports": reportCount = arguments.next().flatMap { Int($0) } ?? reportCount
    case "--per-event": perEvent = arguments.next().flatMap { Int($0) } ?? perEvent
    case "--runs": runs = arguments.next().flatMap { Int($0) } ?? runs
    case "--write": writePath = arguments.next()
    default:
        FileHandle.standardError.write(
            Data("usage: beacon-bench [--reports N] [--per-event K] [--runs R] [--write FILE]\n".utf8))
        exit(2)
    }
}

// MARK: - Capture

let cafes = 10
let (placed, registry) = TraceScenario.placedBeacons(cafeCount: cafes, spacing: 10)
let seconds = Double(reportCount) / (Double(cafes) / 0.105)
let walkLength = Double(cafes - 1) * 10
let speed = max(0.05, walkLength / seconds)
var generator = TraceGenerator(
    beacons: placed,
    path: .walk(
        from: .init(x: 0, y: 1), to: .init(x: walkLength, y: 1), speed: speed,
        linger: max(0, seconds - walkLength / speed)),
    seed: 42)
generator.reportsPerEvent = perEvent
let generationStart = ContinuousClock.now
let capture = generator.capture(datalink: .linuxMonitor)
print("capture: \(capture.count / 1_048_576) MiB, generated in \(ContinuousClock.now - generationStart)")
if let writePath {
    try Data(capture).write(to: URL(fileURLWithPath: writePath))
    print("wrote \(writePath)")
}

// MARK: - Timed runs

func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

let reader = try BTSnoopReader(bytes: capture)
var rates: [Double] = []
for run in 1...max(1, runs) {
    var engine = RangingEngine(registry: registry)
    var reports = 0
    var sightings = 0
    var switches = 0
    let cpuStart = threadCPUSeconds()
    let wallStart = ContinuousClock.now
    reader.forEachPacket { packet in
        guard packet.type == .event else { return }
        let summary = IBeaconSighting.forEachSighting(
            inEvent: packet.payload, time: packet.date,
            cutByCapture: packet.isCut
        ) { sighting in
            sightings += 1
            engine.process(sighting) { event in
                if case .nearestCafeChanged = event { switches += 1 }
            }
        }
        reports += summary.reportCount
    }
    let cpu = threadCPUSeconds() - cpuStart
    let wall = ContinuousClock.now - wallStart
    let rate = Double(reports) / cpu
    let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    rates.append(rate)
    print(
        "run \(run): \(reports) reports, \(sightings) iBeacons, \(switches) café changes; "
            + "cpu \(String(format: "%.3f", cpu)) s → \(Int(rate)) reports/s; "
            + "wall \(String(format: "%.3f", wallSeconds)) s → \(Int(Double(reports) / wallSeconds)) reports/s")
}
let median = rates.sorted()[rates.count / 2]
print(
    "beacon-bench: median \(Int(median)) reports/s on one core (thread CPU time; parse → iBeacon → ranging); target 1000000"
)
BenchFigures.record(
    "beacons_reports", median, unit: "reports/s",
    title: "iBeacon reports, parse → iBeacon → ranging, one core (median of runs)", reference: "beacontools_reports")
