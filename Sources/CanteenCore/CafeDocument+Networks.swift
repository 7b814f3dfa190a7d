import CanteenJSON
import Foundation

extension CafeDocument {
    /// The most networks one café may list.
    public static let maxNetworks = 64

    /// Optional `networks`: the building's address blocks in CIDR notation (`["10.20.0.0/16"]`),
    /// each valid, none listed twice.
    static func readNetworks(_ reader: inout JSONObjectReader) -> [IPAddressRange]? {
        let path = reader.childPath("networks")
        guard reader.value("networks", required: false) != nil else { return [] }
        guard let values = reader.array("networks", required: false) else { return nil }
        if values.count > maxNetworks {
            reader.problems.add(path, "a café lists at most \(maxNetworks) networks, found \(values.count)")
            return nil
        }
        var networks: [IPAddressRange] = []
        var failed = false
        for (index, value) in values.enumerated() {
            guard let text = value.stringValue else {
                reader.problems.add(
                    "\(path)[\(index)]", "expected a network such as \"10.20.0.0/16\", found \(value.typeName)",
                    code: .invalidType)
                failed = true
                continue
            }
            do {
                let network = try IPAddressRange.network(text)
                if networks.contains(network) {
                    reader.problems.add("\(path)[\(index)]", "network \(network) is listed twice", code: .duplicateId)
                    failed = true
                }
                networks.append(network)
            } catch {
                reader.problems.add("\(path)[\(index)]", error.message, code: .invalidNetwork)
                failed = true
            }
        }
        return failed ? nil : networks
    }
}
