/// Text from the API as the commands print it for a terminal. It is untrusted: control
/// characters, which could carry escape sequences, never reach the terminal.
///
/// A description may run over several lines (a photographer's paragraphs). `query`, which shows
/// one photo, keeps its lines, each indented under the first; `list`, a table of one line a
/// photo, joins them with one space. Either way each line is read the same: control characters
/// become spaces, runs of spaces one, and blank lines go.
enum DisplayText {
    /// `text` on one line: its lines joined with one space.
    static func oneLine(_ text: String) -> String {
        lines(text).joined(separator: " ")
    }

    /// The non-blank lines of `text`, each with its control characters and runs of white space
    /// made one space, and trimmed.
    static func lines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { line in
            line.unicodeScalars.split { $0.properties.generalCategory == .control || $0.properties.isWhitespace }
                .map { String($0) }.joined(separator: " ")
        }.filter { !$0.isEmpty }
    }

    /// `text`'s lines as a field of `query`'s text: the first after the label, the others
    /// indented by `indent` spaces to line up under it.
    static func field(_ text: String, indent: Int) -> String {
        lines(text).joined(separator: "\n" + String(repeating: " ", count: indent))
    }
}
