import Foundation

/// How the ranking splits a text into words, as SQLite's FTS5 index (`unicode61
/// remove_diacritics 2`) splits it: a word is a run of letters, digits and private-use
/// characters; anything else separates words; a word is lower-cased, and a Latin letter loses its
/// diacritics (`Zürich` is `zurich`, `ł` stays). PostgreSQL's index splits as FTS5 does
/// (`photosync_words`, schema version 8).
///
/// The ranking reads each store's matches with these words, never the index's own, so the same
/// photos rank alike on every store even where an index splits a rare character otherwise.
public enum SearchWords {
    /// The words of `text`, in order.
    public static func words(of text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                let value = scalar.value
                if (0x61...0x7A).contains(value) || (0x30...0x39).contains(value) {
                    word.append(scalar)
                } else if (0x41...0x5A).contains(value) {
                    word.append(Unicode.Scalar(value + 0x20)!)
                } else if !word.isEmpty {
                    words.append(String(word))
                    word = String.UnicodeScalarView()
                }
                continue
            }
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                word.append(contentsOf: folded(scalar))
            case .nonspacingMark where droppedMarks.contains(scalar.value):
                // A diacritic written apart from its letter goes as FTS5 drops it.
                continue
            default:
                if !word.isEmpty {
                    words.append(String(word))
                    word = String.UnicodeScalarView()
                }
            }
        }
        if !word.isEmpty { words.append(String(word)) }
        return words
    }

    /// The combining marks FTS5's `remove_diacritics 2` drops where they stand alone (those of
    /// U+0300-U+0331 it counts as diacritics; it splits words at the others).
    static let droppedMarks: Set<UInt32> = Set(
        [
            0x300...0x304, 0x306...0x30C, 0x30F...0x30F, 0x311...0x311, 0x31B...0x31B, 0x323...0x328, 0x32D...0x32E,
            0x330...0x331,
        ].joined())

    /// A letter without case, and a Latin letter (whose canonical decomposition is an ASCII
    /// letter and marks: `é`, `ǖ`) without its diacritics.
    private static func folded(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView {
        let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        if decomposed.count > 1, let base = decomposed.first, base.isASCII, base.properties.isAlphabetic {
            return String(base).lowercased().unicodeScalars
        }
        return scalar.properties.lowercaseMapping.unicodeScalars
    }
}
