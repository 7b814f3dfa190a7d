import Foundation
import HTTPTypes

/// Reading the `Cookie` field and writing `Set-Cookie` values.
enum Cookies {
    /// The value of the cookie `name` the request sent, or nil (the first one when sent twice).
    static func value(_ name: String, in headers: HTTPFields) -> String? {
        for field in headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// `name=value` with `HttpOnly`, `SameSite=Lax`, `Secure` when asked, a path and a lifetime
    /// (nil: until the browser closes; 0: delete now).
    static func set(_ name: String, _ value: String, path: String, maxAge: Int?, secure: Bool) -> String {
        var attributes = ["\(name)=\(value)", "Path=\(path)", "HttpOnly", "SameSite=Lax"]
        if secure { attributes.append("Secure") }
        if let maxAge { attributes.append("Max-Age=\(maxAge)") }
        return attributes.joined(separator: "; ")
    }
}
