import Foundation
import UnsplashAPI

/// A stored photo's JSON as Unsplash sent it, to change a few members and send the rest back
/// unchanged: numbers stay integers or fractions, `null` stays `null`.
extension JSONValue {
    /// The JSON text `data` holds; nil when it is not JSON.
    static func parse(_ data: Data) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Encoded as compact UTF-8, slashes unescaped as Unsplash sends them, members in the order
    /// of their names: the same object is the same bytes from every `serve` process (a
    /// dictionary's own order changes with each process's hash seed).
    var encoded: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        // Every case encodes: no non-finite number can come from parsed JSON.
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}
