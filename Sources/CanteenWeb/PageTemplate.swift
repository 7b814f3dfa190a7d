import Foundation

/// Fills a page's HTML template: each `{{name}}` becomes a value, escaped for HTML text and
/// attributes; `{{{name}}}` inserts a value as it is (the caller has made it safe, e.g. JSON
/// inside a `<script type="application/json">` with `<` escaped). An unknown name is left as
/// an empty string, so a template never shows its own syntax.
public enum PageTemplate {
    public static func render(_ template: String, values: (String) -> String?) -> String {
        var result = ""
        result.reserveCapacity(template.utf8.count + template.utf8.count / 4)
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            let raw = rest[open.upperBound...].hasPrefix("{")
            let nameStart = raw ? rest.index(after: open.upperBound) : open.upperBound
            let closing = raw ? "}}}" : "}}"
            guard let close = rest[nameStart...].range(of: closing) else {
                result += rest[open.lowerBound...]
                return result
            }
            let name = rest[nameStart..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            let value = values(name) ?? ""
            result += raw ? value : escapeHTML(value)
            rest = rest[close.upperBound...]
        }
        result += rest
        return result
    }

    /// `&`, `<`, `>`, `"` and `'` as character references.
    public static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A JSON text made safe inside `<script type="application/json">`: no `</script>` or
    /// `<!--` can end or change the element.
    public static func scriptSafeJSON(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c")
            .replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }
}
