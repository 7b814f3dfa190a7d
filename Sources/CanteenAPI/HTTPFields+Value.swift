import HTTPTypes

extension HTTPFields {
    /// The value of the field `name`, as `self[name]` gives it (several fields of that name joined
    /// with commas), without its generic joining when the field appears once, as nearly every
    /// request header does: `self[name]` joins generically on every read (its cost is in
    /// docs/benchmarks.md, "Figures that were in doc comments").
    func value(of name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            if found != nil { return self[name] }
            found = field.value
        }
        return found
    }
}
