import HTTPTypes
import Testing

@testable import CanteenAPI

@Suite("Reading one request header")
struct HTTPFieldsValueTests {
    @Test("a header read by name is what HTTPFields' subscript gives: absent, once, repeated or a cookie")
    func sameAsSubscript() {
        var fields: HTTPFields = [.authorization: "Bearer a", .accept: "text/html", .contentType: "application/json"]
        fields.append(HTTPField(name: .accept, value: "application/json"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        for name in [
            HTTPField.Name.authorization, .accept, .contentType, .cookie, .acceptLanguage,
            HTTPField.Name("AUTHORIZATION")!,
        ] {
            #expect(fields.value(of: name) == fields[name], "\(name)")
        }
        #expect(fields.value(of: .accept) == "text/html, application/json")
        #expect(fields.value(of: .cookie) == "a=1; b=2")
        #expect(fields.value(of: .acceptLanguage) == nil)
    }
}
