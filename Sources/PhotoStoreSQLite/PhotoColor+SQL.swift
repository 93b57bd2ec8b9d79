import GRDB
import PhotoStore

extension PhotoColor {
    /// `photo_color_matches(hex, name)`, which listings filter by: 1 when the photo whose
    /// dominant colour is `hex` has the colour `name`, 0 otherwise (and for an unknown name).
    static let sqlFunction = DatabaseFunction("photo_color_matches", argumentCount: 2, pure: true) { values in
        guard let hex = String.fromDatabaseValue(values[0]), let name = String.fromDatabaseValue(values[1]),
            let color = PhotoColor(rawValue: name)
        else { return false }
        return color.matches(hex: hex)
    }
}
