extension String {
    /// This text with every `scalar` in it replaced by `replacement`, wherever it is.
    ///
    /// `replacingOccurrences(of:with:)`, `replacing(_:with:)` and a comparison of `Character`s
    /// see a quote that a combining mark follows (`"\u{301}`) as one character that is not `"`,
    /// and leave it; the parser the escaping guards (FTS5, `to_tsquery`, a CSV reader, a browser)
    /// reads code points and ends its string there. Escape with this, or on bytes.
    public func replacingEach(_ scalar: Unicode.Scalar, with replacement: String) -> String {
        guard unicodeScalars.contains(scalar) else { return self }
        var replaced = String.UnicodeScalarView()
        for each in unicodeScalars {
            if each == scalar {
                replaced.append(contentsOf: replacement.unicodeScalars)
            } else {
                replaced.append(each)
            }
        }
        return String(replaced)
    }
}
