import PhotosyncModel

/// A source written in a test as photosync's users write it (`"user:ann"`), read with
/// `PhotoSource(parsing:)`: a test's own text, so a literal that does not parse is the test's bug.
extension PhotoSource: ExpressibleByStringInterpolation {
    public init(stringLiteral text: String) {
        do {
            self = try PhotoSource(parsing: text)
        } catch {
            fatalError("a test's source does not parse: \(error)")
        }
    }

    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(stringLiteral: String(stringInterpolation: stringInterpolation))
    }
}
