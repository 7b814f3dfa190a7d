import CanteenCore
import Testing

@testable import CanteenAPI

@Suite("Entity tags")
struct EntityTagsTests {
    @Test("If-Match holds for the current strong tag, any listed tag, or * once written")
    func ifMatch() {
        #expect(EntityTags.precondition(ifMatch: "\"3\"").isSatisfied(by: 3))
        #expect(!EntityTags.precondition(ifMatch: "\"3\"").isSatisfied(by: 4))
        #expect(EntityTags.precondition(ifMatch: "\"1\", \"4\"").isSatisfied(by: 4))
        #expect(!EntityTags.precondition(ifMatch: "W/\"4\"").isSatisfied(by: 4))
        #expect(!EntityTags.precondition(ifMatch: "4").isSatisfied(by: 4))
        #expect(EntityTags.precondition(ifMatch: "*").isSatisfied(by: 1))
        #expect(!EntityTags.precondition(ifMatch: "*").isSatisfied(by: 0))
        #expect(EntityTags.precondition(ifMatch: "\"0\"").isSatisfied(by: 0))
        #expect(EntityTags.tag(12) == "\"12\"")
    }

    @Test("If-None-Match matches the tag, a weak copy of it, one of a list, or *")
    func ifNoneMatch() {
        #expect(EntityTags.noneMatch("\"7\"", "\"7\""))
        #expect(EntityTags.noneMatch("W/\"7\"", "\"7\""))
        #expect(EntityTags.noneMatch("\"1\", \"7\"", "\"7\""))
        #expect(EntityTags.noneMatch("*", "\"7\""))
        #expect(!EntityTags.noneMatch("\"8\"", "\"7\""))
    }
}
