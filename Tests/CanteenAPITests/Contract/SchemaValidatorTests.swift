import CanteenCore
import CanteenJSON
import Testing

/// The contract tests are only as good as their checker: these show it refuses what it must.
@Suite("The contract's schema checker")
struct SchemaValidatorTests {
    static let document = try! OpenAPIDocument(
        yaml: """
            openapi: 3.1.0
            paths:
              /things/{id}:
                parameters:
                  - {name: id, in: path, required: true, schema: {type: string}}
                get:
                  responses:
                    "200":
                      description: A thing.
                      content:
                        application/json:
                          schema: {$ref: "#/components/schemas/Thing"}
                    "304": {description: Not modified.}
            components:
              schemas:
                Base:
                  type: object
                  required: [id]
                  properties:
                    id: {type: string, pattern: "^t_"}
                Thing:
                  allOf:
                    - $ref: "#/components/schemas/Base"
                    - type: object
                      properties:
                        count: {type: integer, minimum: 0}
                        kind: {type: string, enum: [small, large]}
                        seen: {type: string, format: date-time}
                        owner:
                          oneOf:
                            - {type: object, required: [name], properties: {name: {type: string}}}
                            - {type: "null"}
            """)

    func problems(_ value: JSONValue, strict: Bool = true) -> [String] {
        let validator = SchemaValidator(root: Self.document.root, strictObjects: strict)
        return validator.problems(value, against: ["$ref": "#/components/schemas/Thing"])
    }

    @Test("a conforming value, with members from every allOf part and a oneOf alternative, has no problems")
    func conforming() {
        #expect(
            problems([
                "id": "t_1", "count": 2, "kind": "small", "seen": "2026-11-24T10:00:00Z",
                "owner": ["name": "Ada"],
            ]) == [])
        #expect(problems(["id": "t_1", "owner": .null]) == [])
    }

    @Test("each kind of break is named with its path")
    func breaks() {
        #expect(problems(["count": 1]) == ["$: the required member id is missing"])
        #expect(problems(["id": "x_1"]) == [#"$.id: "x_1" does not match ^t_"#])
        #expect(problems(["id": "t_1", "count": -1]) == ["$.count: -1 is below the minimum 0.0"])
        #expect(problems(["id": "t_1", "count": "2"]) == [#"$.count: "2" is not of type integer"#])
        #expect(
            problems(["id": "t_1", "kind": "huge"]) == [#"$.kind: "huge" is not one of ["\"small\"", "\"large\""]"#])
        #expect(problems(["id": "t_1", "seen": "yesterday"]) == [#"$.seen: "yesterday" is not an RFC 3339 date-time"#])
        #expect(problems(["id": "t_1", "owner": 5]) == ["$.owner: 5 matches 0 of oneOf, not 1"])
    }

    @Test("an answer's member the document does not name is a problem; a request's is not")
    func undocumentedMembers() {
        #expect(problems(["id": "t_1", "colour": "red"]) == ["$: the member colour is not documented"])
        #expect(problems(["id": "t_1", "colour": "red"], strict: false) == [])
    }

    @Test("the document's operations carry their path-level parameters; an unlisted status has no response")
    func operations() throws {
        let operation = try #require(Self.document.operations["GET /things/{id}"])
        #expect(Self.document.operations.keys.sorted() == ["GET /things/{id}"])
        #expect(operation.parameters.map(\.name) == ["id"])
        #expect(operation.response(for: 500) == nil)
        #expect(operation.response(for: 304)?.content == [:])
        #expect(operation.response(for: 200)?.content.keys.sorted() == ["application/json"])
    }
}
