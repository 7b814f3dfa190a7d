import Beacons
import Foundation

// MARK: - RangingPlot

/// An SVG of a ranging replay: each beacon's raw and smoothed (RSSI − measured power) over time,
/// and the nearest-café decisions, so ops can see why the engine switched.
struct RangingPlot {
    /// One beacon's samples: time (s from the first sighting), raw and smoothed dB.
    struct Series {
        var label: String
        var cafeID: String?
        var times: [Double] = []
        var raw: [Double] = []
        var smoothed: [Double?] = []
    }

    /// A change of nearest café at a time (s from the first sighting), and why.
    struct Decision {
        var time: Double
        var cafeID: String?
        var reason: NearestCafeSelector.Reason?
    }

    var title: String
    var series: [Series] = []
    var decisions: [Decision] = []
    var duration = 1.0
    private var start: Date?
    private var byIdentity: [BeaconIdentity: Int] = [:]
    /// The registry's cafés, in its order: a café keeps its colour whatever is heard first.
    private var registeredCafes: [String] = []

    init(title: String) {
        self.title = title
    }

    /// Records a sighting the engine has just taken, and the changes of café it made.
    mutating func add(_ sighting: IBeaconSighting, engine: RangingEngine, events: [RangingEvent]) {
        let start = self.start ?? sighting.time
        self.start = start
        registeredCafes = engine.registry.cafeIDs
        for event in events {
            if case let .nearestCafeChanged(_, to, at) = event {
                decisions.append(
                    Decision(time: at.timeIntervalSince(start), cafeID: to, reason: engine.lastChangeReason))
            }
        }
        let time = sighting.time.timeIntervalSince(start)
        duration = max(duration, time)
        guard let rssi = sighting.rssi, let track = engine.track(for: sighting.identity) else { return }
        let index: Int
        if let known = byIdentity[sighting.identity] {
            index = known
        } else {
            index = series.count
            byIdentity[sighting.identity] = index
            let registration = track.registration
            let name =
                registration.map { $0.label.isEmpty ? $0.identity.description : $0.label }
                ?? "\(sighting.identity) (unregistered)"
            series.append(Series(label: name, cafeID: registration?.cafeID))
        }
        series[index].times.append(time)
        series[index].raw.append(Double(rssi) - track.measuredPower)
        series[index].smoothed.append(track.level)
    }

    /// A short phrase for why the café changed.
    static func phrase(_ reason: NearestCafeSelector.Reason?) -> String {
        switch reason {
        case .acquired: "first choice"
        case .clearLead: "clear lead"
        case .leaving: "lead while leaving"
        case .averagedLead: "lead on average"
        case .firstGuessCorrected: "first guess corrected"
        case .cafeLost: "café lost"
        case .settled: "settled"
        case nil: ""
        }
    }

    // MARK: - Drawing

    static let width = 960.0
    static let height = 520.0
    static let left = 64.0
    static let right = 24.0
    static let top = 64.0
    static let bottom = 56.0
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]

    /// The SVG document.
    func svg() -> String {
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let (low, high) = valueRange()
        func x(_ time: Double) -> Double { Self.left + time / duration * plotWidth }
        func y(_ value: Double) -> Double { Self.top + (high - min(high, max(low, value))) / (high - low) * plotHeight }
        let cafes = orderedCafes()
        func color(ofCafe cafe: String?) -> String {
            guard let cafe, let index = cafes.firstIndex(of: cafe) else { return "#7f7f7f" }
            return Self.palette[index % Self.palette.count]
        }

        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(Self.height))" \
            viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Self.left)" y="20" font-size="15" font-weight="bold">\(escape(title))</text>

            """
        // Grid and axes.
        let step = gridStep(high - low, lines: 8)
        var tick = (low / step).rounded(.up) * step
        while tick <= high + 1e-9 {
            out +=
                "<line x1=\"\(f(Self.left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(y(tick)))\" stroke=\"#e6e6e6\"/>"
            out +=
                "<text x=\"\(f(Self.left - 6))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(Int(tick.rounded()))</text>\n"
            tick += step
        }
        let timeStep = gridStep(duration, lines: 10)
        var second = 0.0
        while second <= duration + 1e-9 {
            out +=
                "<line x1=\"\(f(x(second)))\" y1=\"\(f(Self.top))\" x2=\"\(f(x(second)))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"#f0f0f0\"/>"
            out +=
                "<text x=\"\(f(x(second)))\" y=\"\(f(Self.top + plotHeight + 16))\" text-anchor=\"middle\">\(Int(second.rounded()))</text>\n"
            second += timeStep
        }
        out +=
            "<rect x=\"\(f(Self.left))\" y=\"\(f(Self.top))\" width=\"\(f(plotWidth))\" height=\"\(f(plotHeight))\" fill=\"none\" stroke=\"#999\"/>\n"
        out +=
            "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(Self.height - 12))\" text-anchor=\"middle\">seconds since the first sighting</text>\n"
        out +=
            "<text transform=\"translate(16 \(f(Self.top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">RSSI − measured power (dB)</text>\n"

        // The nearest café over time, as a band above the plot.
        var bandStart = 0.0
        var bandCafe: String?
        for decision in decisions + [Decision(time: duration, cafeID: nil)] {
            if let cafe = bandCafe, decision.time > bandStart {
                out +=
                    "<rect x=\"\(f(x(bandStart)))\" y=\"\(f(Self.top - 14))\" width=\"\(f(x(decision.time) - x(bandStart)))\" height=\"10\" fill=\"\(color(ofCafe: cafe))\" opacity=\"0.8\"/>\n"
            }
            bandStart = decision.time
            bandCafe = decision.cafeID
        }
        out +=
            "<text x=\"\(f(Self.left + plotWidth))\" y=\"\(f(Self.top - 18))\" text-anchor=\"end\" fill=\"#555\">nearest café</text>\n"

        // Raw samples (thinned to about 6,000 dots in all), then the smoothed lines.
        let total = series.reduce(0) { $0 + $1.raw.count }
        let stride = max(1, total / 6_000)
        for item in series {
            let paint = color(ofCafe: item.cafeID)
            out += "<g fill=\"\(paint)\" fill-opacity=\"0.35\">"
            for index in Swift.stride(from: 0, to: item.raw.count, by: stride) {
                out += "<circle cx=\"\(f(x(item.times[index])))\" cy=\"\(f(y(item.raw[index])))\" r=\"1.8\"/>"
            }
            out += "</g>\n"
        }
        for item in series {
            out +=
                "<polyline fill=\"none\" stroke=\"\(color(ofCafe: item.cafeID))\" stroke-width=\"2\" points=\"\(polyline(item, x: x, y: y, columns: Int(plotWidth)))\"/>\n"
        }

        // Decisions: a dashed line and the café taken.
        for (index, decision) in decisions.enumerated() {
            let px = x(decision.time)
            let name = decision.cafeID ?? "none"
            let labelY = Self.top + 14 + Double(index % 3) * 14
            out +=
                "<line x1=\"\(f(px))\" y1=\"\(f(Self.top))\" x2=\"\(f(px))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>"
            let why = Self.phrase(decision.reason)
            out +=
                "<text x=\"\(f(px + 4))\" y=\"\(f(labelY))\" fill=\"#333\">→ \(escape(name)) at \(String(format: "%.1f", decision.time)) s\(why.isEmpty ? "" : " (\(why))")</text>\n"
        }

        // Legend, in the cafés' order.
        var legendX = Self.left + 260
        let legendOrder = series.sorted {
            (cafes.firstIndex(of: $0.cafeID ?? "") ?? .max) < (cafes.firstIndex(of: $1.cafeID ?? "") ?? .max)
        }
        for item in legendOrder {
            let paint = color(ofCafe: item.cafeID)
            out +=
                "<line x1=\"\(f(legendX))\" y1=\"36\" x2=\"\(f(legendX + 18))\" y2=\"36\" stroke=\"\(paint)\" stroke-width=\"2\"/>"
            out += "<circle cx=\"\(f(legendX + 9))\" cy=\"36\" r=\"2\" fill=\"\(paint)\" fill-opacity=\"0.5\"/>"
            let text = item.cafeID.map { "\(item.label) (\($0))" } ?? item.label
            out += "<text x=\"\(f(legendX + 24))\" y=\"40\">\(escape(text))</text>\n"
            legendX += 30 + Double(text.count) * 6.6
        }
        out += "<text x=\"\(f(Self.left))\" y=\"40\" fill=\"#555\">dots: packets · lines: smoothed level</text>\n"
        out += "</svg>\n"
        return out
    }

    /// The registry's cafés, then any other in order of appearance (a café's colour is fixed).
    private func orderedCafes() -> [String] {
        var cafes = registeredCafes
        for item in series { if let cafe = item.cafeID, !cafes.contains(cafe) { cafes.append(cafe) } }
        for decision in decisions { if let cafe = decision.cafeID, !cafes.contains(cafe) { cafes.append(cafe) } }
        return cafes
    }

    /// The dB range shown: the smoothed values and most raw ones, with a little room.
    private func valueRange() -> (Double, Double) {
        var values = series.flatMap(\.raw).sorted()
        guard !values.isEmpty else { return (-40, 0) }
        let smoothed = series.flatMap { $0.smoothed.compactMap { $0 } }
        let lowRaw = values[Int(Double(values.count - 1) * 0.01)]
        values = [lowRaw, values[values.count - 1]] + smoothed
        let low = ((values.min() ?? -40) - 3) / 5
        let high = ((values.max() ?? 0) + 3) / 5
        return (low.rounded(.down) * 5, max(low.rounded(.down) * 5 + 10, high.rounded(.up) * 5))
    }

    /// The smoothed line, at most one point per pixel column's start (keeps the SVG small).
    private func polyline(_ item: Series, x: (Double) -> Double, y: (Double) -> Double, columns: Int) -> String {
        var points: [String] = []
        var lastColumn = -1
        for index in item.times.indices {
            guard let value = item.smoothed[index] else { continue }
            let px = x(item.times[index])
            let column = Int(px)
            if column == lastColumn && index != item.times.count - 1 { continue }
            lastColumn = column
            points.append("\(f(px)),\(f(y(value)))")
        }
        return points.joined(separator: " ")
    }

    private func gridStep(_ span: Double, lines: Double) -> Double {
        let raw = max(span / lines, 1e-9)
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        for factor in [1.0, 2.0, 5.0, 10.0] where factor * magnitude >= raw { return factor * magnitude }
        return 10 * magnitude
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
