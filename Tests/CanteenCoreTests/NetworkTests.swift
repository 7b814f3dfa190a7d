import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Testing

@Suite("Café networks: addresses, CIDR blocks, and the café document's networks")
struct NetworkTests {
    @Test("addresses parse as IPv4 or IPv6; IPv4-mapped IPv6 reads as IPv4; anything else is refused")
    func addresses() {
        #expect(IPAddress("10.20.3.4") == .v4(0x0A14_0304))
        #expect(IPAddress("::ffff:10.20.3.4")?.unmapped == IPAddress("10.20.3.4"))
        #expect(IPAddress("2001:db8::1") == .v6(0x2001_0db8_0000_0000_0000_0000_0000_0001))
        #expect(IPAddress("::1")?.isLoopback == true)
        #expect(IPAddress("127.9.9.9")?.isLoopback == true)
        for bad in [
            "", "10.20.3", "10.20.3.256", "010.1.1.1", "1.2.3.4.5", "2001:db8:::1", "2001:db8::1::2", "gggg::1",
            "10.0.0.1/8", " 10.0.0.1", "1:2:3:4:5:6:7:8:9", "::ffff:1.2.3",
        ] {
            #expect(IPAddress(bad) == nil, "'\(bad)'")
        }
    }

    @Test("a network holds the addresses under its prefix, of its own family only")
    func contains() throws {
        let building = try IPAddressRange.network("10.20.0.0/16")
        #expect(building.contains(IPAddress("10.20.0.1")!))
        #expect(building.contains(IPAddress("10.20.255.255")!))
        #expect(building.contains(IPAddress("::ffff:10.20.7.7")!.unmapped))
        #expect(!building.contains(IPAddress("10.21.0.1")!))
        #expect(!building.contains(IPAddress("2001:db8::1")!))
        let v6 = try IPAddressRange.network("2001:db8:a::/48")
        #expect(v6.contains(IPAddress("2001:db8:a:ffff::9")!))
        #expect(!v6.contains(IPAddress("2001:db8:b::1")!))
        #expect(try IPAddressRange.network("10.20.30.40").contains(IPAddress("10.20.30.40")!))
        #expect(try IPAddressRange.network("0.0.0.0/0").contains(IPAddress("192.0.2.1")!))
        #expect(try IPAddressRange.network("10.16.0.0/12").contains(IPAddress("10.31.255.255")!))
        #expect(try !IPAddressRange("10.16.0.0/12").contains(IPAddress("10.32.0.0")!))
    }

    @Test("a network with host bits set, a bad prefix or a bad address is refused, saying why")
    func invalid() {
        for (text, hint) in [
            ("10.20.1.0/16", "10.20.0.0/16"), ("10.20.0.0/33", "0 to 32"), ("10.20.0.0/-1", "0 to 32"),
            ("2001:db8::/129", "0 to 128"), ("intranet", "IPv4 or IPv6 address"),
            ("10.20.0.0/", "0 to 32"),
        ] {
            do {
                _ = try IPAddressRange.network(text)
                Issue.record("'\(text)' was accepted")
            } catch {
                #expect(error.code == .invalidNetwork, "\(text)")
                #expect(error.message.contains(hint), "\(text): \(error.message)")
            }
        }
    }

    @Test("a café lists its building's networks; bad or repeated ones are named by their path")
    func document() throws {
        var document = Fixtures.cafeDocument()
        document["networks"] = ["10.20.0.0/16", "2001:db8:a::/48"]
        let (cafe, _) = try CafeDocument.parse(.object(document))
        #expect(cafe.networks.map(\.description) == ["10.20.0.0/16", "2001:db8:a::/48"])
        #expect(try CafeDocument.parse(.object(Fixtures.cafeDocument())).cafe.networks.isEmpty)

        document["networks"] = ["10.20.0.0/16", "10.20.1.0/16", 7, "10.20.0.0/16"]
        do {
            _ = try CafeDocument.parse(.object(document))
            Issue.record("bad networks were accepted")
        } catch {
            let paths = error.problems.map(\.path)
            #expect(paths == ["networks[1]", "networks[2]", "networks[3]"], "\(error.problems)")
            #expect(error.problems.first?.code == .invalidNetwork)
        }
        document["networks"] = "10.20.0.0/16"
        #expect(throws: ValidationError.self) { try CafeDocument.parse(.object(document)) }
    }
}
