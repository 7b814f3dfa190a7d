import Foundation

// MARK: - DistanceModel

/// How a smoothed RSSI becomes metres, given the beacon's measured power at 1 m.
public enum DistanceModel: Hashable, Sendable {
    /// Log-distance path loss: d = 10^((measuredPower − rssi) / (10·n)).
    case logDistance(exponent: Double)
    /// AltBeacon's curve fit: r = rssi / measuredPower; d = r^10 when r < 1, else A·r^B + C.
    case curveFit(a: Double, b: Double, c: Double)

    /// AltBeacon's default coefficients (fitted on a Nexus 5).
    public static let altBeaconNexus5 = DistanceModel.curveFit(a: 0.42093, b: 6.9476, c: 0.54992)

    /// Distance in metres; nil when the inputs make no sense (measured power 0, not finite).
    public func distance(rssi: Double, measuredPower: Double) -> Double? {
        guard rssi.isFinite, measuredPower.isFinite, measuredPower != 0 else { return nil }
        let result: Double
        switch self {
        case let .logDistance(exponent):
            guard exponent > 0 else { return nil }
            result = pow(10, (measuredPower - rssi) / (10 * exponent))
        case let .curveFit(a, b, c):
            let ratio = rssi / measuredPower
            result = ratio < 1 ? pow(ratio, 10) : a * pow(ratio, b) + c
        }
        return result.isFinite ? result : nil
    }
}
