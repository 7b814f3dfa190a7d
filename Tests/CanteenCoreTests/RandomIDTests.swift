import Foundation
import Testing

@testable import CanteenCore

@Suite struct RandomIDTests {
    @Test func base64URLMatchesFoundationsBase64WithTheURLAlphabet() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...40 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(RandomID.base64URL(encoding: bytes[...]) == expected, "\(bytes)")
        }
        #expect(RandomID.base64URL(encoding: [0xFB, 0xFF, 0xBF][...]) == "-_-_")
    }

    @Test func randomBytesComeInAnyCountAndDoNotRepeat() {
        #expect(RandomID().randomBytes(0).isEmpty)
        let long = RandomID().randomBytes(1000)  // more than one pool refill
        #expect(long.count == 1000)
        #expect(Set(long).count > 200)
        let chunks = (0..<100).map { _ in RandomID().randomBytes(9) }
        #expect(Set(chunks).count == 100)
        #expect(chunks.allSatisfy { $0.count == 9 })
    }

    @Test func idsHaveThePrefixAndTwelveURLSafeCharacters() {
        let ids = (0..<1000).map { _ in RandomID().make("ord") }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.hasPrefix("ord_"))
            let tail = id.dropFirst(4)
            #expect(tail.count == 12)
            #expect(tail.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    @Test func timeOrderedIDsSortByTimeAndStayUnique() {
        // Ten ids in each of 200 consecutive milliseconds (mid-millisecond, clear of rounding).
        let ids = (0..<2000).map { index in
            RandomID().timeOrdered(
                "ord", at: Date(timeIntervalSince1970: Double(1_795_000_000_123 + index / 10) / 1000 + 0.0004))
        }
        #expect(Set(ids).count == ids.count)
        for (earlier, later) in zip(ids, ids.dropFirst(10)) { #expect(earlier < later) }
        for id in ids {
            #expect(id.hasPrefix("ord_") && id.count == 20)
            #expect(id.dropFirst(4).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
        // An instant no clock gives (NaN, before 1970) still makes an id rather than trapping.
        #expect(RandomID().timeOrdered("ord", at: Date(timeIntervalSince1970: .nan)).hasPrefix("ord_--------"))
        #expect(RandomID().timeOrdered("ord", at: Date(timeIntervalSince1970: -5)).hasPrefix("ord_--------"))
        #expect(RandomID.sortable(0) == "--------")
        #expect(RandomID.sortable(0xFFFF_FFFF_FFFF) == "zzzzzzzz")
        #expect(RandomID.sortable(1) < RandomID.sortable(2))
        #expect(RandomID.sortable(63) < RandomID.sortable(64))
    }
}
