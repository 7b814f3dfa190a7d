import CanteenCore
import Testing

/// Reading addresses, ranges and webhook URLs strictly, and judging where webhooks may go.
@Suite("Webhook destinations: addresses, ranges, the policy")
struct WebhookAddressPolicyTests {
    @Test(
        "standard address text is read as inet_pton reads it, and written back in RFC 5952 form",
        arguments: [
            ("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
            ("::1", "::1"), ("::", "::"), ("2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("fe80::", "fe80::"),
            ("::ffff:169.254.169.254", "::ffff:169.254.169.254"), ("::ffff:a9fe:a9fe", "::ffff:169.254.169.254"),
            ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("1::", "1::"), ("0:0:0:0:0:0:0:1", "::1"),
            ("64:ff9b::10.0.0.1", "64:ff9b::a00:1"), ("2001:0:0:1::1", "2001:0:0:1::1"),
        ])
    func standardText(text: String, written: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == written)
        #expect(IPAddress(written) == address)
    }

    @Test(
        "spellings inet_pton refuses are not addresses",
        arguments: [
            "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "127.0.0.1.", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "",
            "1::2::3", ":::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8:9", "12345::", "::g", "fe80::1%eth0", "[::1]",
            "::1.2.3", "1.2.3.4::", "::ffff:01.2.3.4", "+1::", " 1.2.3.4", "１.2.3.4",
        ])
    func notStandard(text: String) {
        #expect(IPAddress(text) == nil, "\(text)")
    }

    @Test(
        "inet_aton's readings of numeric hosts, so the refusal can say what a resolver would reach",
        arguments: [
            ("2130706433", 0x7F00_0001), ("0x7f000001", 0x7F00_0001), ("0177.0.0.1", 0x7F00_0001),
            ("127.1", 0x7F00_0001),
            ("0x7f.1", 0x7F00_0001), ("017700000001", 0x7F00_0001), ("10.1", 0x0A00_0001), ("0", 0),
            ("1.2.3.4", 0x0102_0304),
        ] as [(String, UInt32)])
    func legacyReadings(text: String, value: UInt32) {
        #expect(IPAddress.legacyIPv4(text) == value)
        #expect(IPAddress.looksNumeric(text))
    }

    @Test(
        "names whose last label is not a number are names",
        arguments: [
            "hooks.example.com", "localhost", "1.2.3.com",
            "0x7f.example", "a-1",
        ])
    func namesAreNotNumeric(text: String) {
        #expect(!IPAddress.looksNumeric(text))
    }

    @Test("CIDR ranges: membership by prefix, one family at a time; bits after the prefix are refused")
    func ranges() throws {
        let ten = try IPAddressRange("10.0.0.0/8")
        #expect(ten.contains(IPAddress("10.255.1.2")!))
        #expect(!ten.contains(IPAddress("11.0.0.1")!))
        #expect(!ten.contains(IPAddress("::ffff:10.0.0.1")!), "the policy unwraps mapped addresses, not the range")
        #expect(try IPAddressRange("127.0.0.1") == IPAddressRange(IPAddress("127.0.0.1")!, prefixLength: 32))
        #expect(try IPAddressRange("fd00::/8").contains(IPAddress("fd12::1")!))
        #expect(try IPAddressRange("0.0.0.0/0").contains(IPAddress("8.8.8.8")!))
        for bad in [
            "10.1.2.3/8", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/x", "fd00::/129", "example.com/8", "2130706433",
            "10.0.0.0/-1", "10.0.0.0/+8",
        ] {
            #expect(throws: IPAddressRange.ParseError.self, "\(bad)") { try IPAddressRange(bad) }
        }
        let typo = #expect(throws: IPAddressRange.ParseError.self) { try IPAddressRange("10.1.2.3/8") }
        #expect(typo?.description.contains("did you mean 10.0.0.0/8?") == true)
    }

    @Test(
        "internal addresses are named for what they are; public ones pass",
        arguments: [
            ("127.0.0.1", "loopback"), ("0.0.0.0", "unspecified"), ("10.1.2.3", "private"), ("172.20.0.1", "private"),
            ("192.168.0.10", "private"), ("100.100.100.200", "shared address space (carrier-grade NAT)"),
            ("169.254.169.254", "link-local (where cloud metadata services answer)"), ("224.0.0.251", "multicast"),
            ("255.255.255.255", "broadcast"), ("240.1.2.3", "reserved"), ("192.0.2.1", "documentation"),
            ("198.18.5.5", "benchmarking"), ("::1", "loopback"), ("::", "unspecified"), ("fe80::1", "link-local"),
            ("fd00::1", "private (unique local)"), ("ff02::1", "multicast"), ("2001:db8::1", "documentation"),
            ("::ffff:169.254.169.254", "link-local (where cloud metadata services answer)"),
            ("::ffff:127.0.0.1", "loopback"), ("::127.0.0.1", "loopback"), ("64:ff9b::a00:1", "private"),
            ("::8.8.8.8", "reserved (IPv4-compatible)"), ("2002:7f00:1::1", "reserved (6to4)"),
            ("2001::1", "reserved (IETF protocol assignments)"), ("4000::1", "reserved (not IPv6 global unicast)"),
        ])
    func internalKinds(text: String, kind: String) throws {
        #expect(WebhookAddressPolicy.internalKind(of: try #require(IPAddress(text))) == kind)
    }

    @Test(
        "public addresses, and the IPv6 forms that carry one, pass",
        arguments: [
            "93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.215.14", "64:ff9b::808:808",
            "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "223.255.255.255",
        ])
    func publicAddresses(text: String) throws {
        #expect(WebhookAddressPolicy.internalKind(of: try #require(IPAddress(text))) == nil)
        #expect(WebhookAddressPolicy().refusal(of: try #require(IPAddress(text))) == nil)
    }

    @Test("an allowed range lets its addresses through, and their IPv4-mapped forms; nothing else")
    func allowedRanges() throws {
        let policy = WebhookAddressPolicy(allowing: [try IPAddressRange("127.0.0.0/8"), try IPAddressRange("fd00::/8")])
        #expect(policy.refusal(of: IPAddress("127.0.0.1")!) == nil)
        #expect(policy.refusal(of: IPAddress("::ffff:127.0.0.1")!) == nil)
        #expect(policy.refusal(of: IPAddress("fd12::1")!) == nil)
        #expect(policy.refusal(of: IPAddress("::1")!) == "loopback", "IPv6 loopback is another range")
        #expect(policy.refusal(of: IPAddress("10.0.0.1")!) == "private")
        #expect(policy.refusal(of: IPAddress("169.254.169.254")!) != nil)
    }

    @Test("a name is judged on every address it resolves to, and the first one is connected to")
    func verdicts() async throws {
        let resolver = TableResolver(table: [
            "public.example": ["93.184.215.14", "2606:4700:4700::1111"],
            "mixed.example": ["93.184.215.14", "10.0.0.7"],
            "metadata.example": ["169.254.169.254"],
        ])
        let policy = WebhookAddressPolicy()
        func verdict(_ url: String) async throws -> WebhookAddressPolicy.Verdict {
            await policy.verdict(for: try WebhookDestination(url: url), resolver: resolver)
        }
        #expect(try await verdict("https://public.example/hook") == .connect(IPAddress("93.184.215.14")!))
        #expect(
            try await verdict("https://mixed.example/hook")
                == .refused("mixed.example resolves to 10.0.0.7, which is private"))
        #expect(
            try await verdict("http://metadata.example/")
                == .refused(
                    "metadata.example resolves to 169.254.169.254, which is link-local "
                        + "(where cloud metadata services answer)"))
        #expect(
            try await verdict("http://[::ffff:a9fe:a9fe]/")
                == .refused("address ::ffff:169.254.169.254 is link-local (where cloud metadata services answer)"))
        guard case .unresolved(let error) = try await verdict("http://nowhere.example/") else {
            Issue.record("an unknown name is unresolved")
            return
        }
        #expect(error.name == "nowhere.example")
    }

    @Test("a URL is read as an HTTP client reads it: scheme, host, port")
    func destinations() throws {
        let named = try WebhookDestination(url: "HTTPS://Hooks.Example.com:8443/a?b#c")
        #expect(named.scheme == "https")
        #expect(named.host == .name("Hooks.Example.com"))
        #expect(named.clientHost == "Hooks.Example.com")
        #expect(named.port == 8443)
        let literal = try WebhookDestination(url: "http://[2606:4700:4700::1111]/")
        #expect(literal.host == .address(IPAddress("2606:4700:4700::1111")!))
        #expect(literal.clientHost == "2606:4700:4700::1111")
        #expect(literal.port == 80)
        #expect(try WebhookDestination(url: "https://hooks.example.com/").port == 443)
        #expect(try WebhookDestination(url: "http://hooks.example.com:/").port == 80)
    }

    @Test(
        "numeric hosts in other spellings are refused, saying what a resolver would reach",
        arguments: [
            ("http://2130706433/", "127.0.0.1"), ("http://0x7f000001/", "127.0.0.1"),
            ("http://0177.0.0.1/", "127.0.0.1"),
            ("http://127.1/", "127.0.0.1"), ("http://0/", "0.0.0.0"), ("http://169.254.43518/", "169.254.169.254"),
        ])
    func numericSpellings(url: String, reading: String) {
        let refused = #expect(throws: CanteenError.self) { try WebhookDestination(url: url) }
        #expect(refused?.code == .invalidWebhookUrl)
        #expect(refused?.field == "url")
        #expect(refused?.message.contains("resolvers read it as \(reading)") == true, "\(refused?.message ?? "")")
    }
}

/// Answers from a fixed table; any other name does not resolve.
struct TableResolver: HostResolver {
    let table: [String: [String]]

    func addresses(of name: String) async throws -> [IPAddress] {
        guard let texts = table[name] else { throw HostResolutionError(name: name, reason: "not in the table") }
        return texts.compactMap(IPAddress.init)
    }
}
