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
        // The word's UTF-8 so far, made a `String` once: a ranking splits thousands of texts.
        var word: [UInt8] = []
        func endWord() {
            guard !word.isEmpty else { return }
            words.append(String(decoding: word, as: UTF8.self))
            word.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte | 0x20)
                default: endWord()
                }
                continue
            }
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                if let base = latinBases[scalar.value] {
                    word.append(base)
                } else {
                    word.append(contentsOf: scalar.properties.lowercaseMapping.utf8)
                }
            case .nonspacingMark where droppedMarks.contains(scalar.value):
                // A diacritic written apart from its letter goes as FTS5 drops it.
                continue
            default:
                endWord()
            }
        }
        endWord()
        return words
    }

    /// The combining marks FTS5's `remove_diacritics 2` drops where they stand alone (those of
    /// U+0300-U+0331 it counts as diacritics; it splits words at the others).
    static let droppedMarks: Set<UInt32> = Set(
        [
            0x300...0x304, 0x306...0x30C, 0x30F...0x30F, 0x311...0x311, 0x31B...0x31B, 0x323...0x328, 0x32D...0x32E,
            0x330...0x331,
        ].joined())

    /// The lower-case ASCII letter of each Latin letter FTS5's `remove_diacritics 2` folds to
    /// one (`é`, `ǖ`, `Å`): its own table, read from SQLite 3.40, which PostgreSQL's version 8
    /// folds alike (a test holds the two to it).
    static let latinBases: [UInt32: UInt8] = Dictionary(
        uniqueKeysWithValues: zip(latinLetters.unicodeScalars.map(\.value), latinLetterBases.utf8))

    static let latinLetters =
        "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜ"
        + "ĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽ"
        + "žſƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰ"
        + "ȱȲȳḀḁḂḃḄḅḆḇḈḉḊḋḌḍḎḏḐḑḒḓḔḕḖḗḘḙḚḛḜḝḞḟḠḡḢḣḤḥḦḧḨḩḪḫḬḭḮḯḰḱḲḳḴḵḶḷḸḹḺḻḼḽḾḿṀṁṂṃṄṅṆṇṈṉṊṋṌ"
        + "ṍṎṏṐṑṒṓṔṕṖṗṘṙṚṛṜṝṞṟṠṡṢṣṤṥṦṧṨṩṪṫṬṭṮṯṰṱṲṳṴṵṶṷṸṹṺṻṼṽṾṿẀẁẂẃẄẅẆẇẈẉẊẋẌẍẎẏẐẑẒẓẔẕẖẗẘẙẛẠạ"
        + "ẢảẤấẦầẨẩẪẫẬậẮắẰằẲẳẴẵẶặẸẹẺẻẼẽẾếỀềỂểỄễỆệỈỉỊịỌọỎỏỐốỒồỔổỖỗỘộỚớỜờỞởỠỡỢợỤụỦủỨứỪừỬửỮữỰự"
        + "ỲỳỴỵỶỷỸỹKÅ"

    static let latinLetterBases =
        "aaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyyaaaaaaccccccccddeeeeeeeeeeg"
        + "ggggggghhiiiiiiiiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzz"
        + "zsoouuaaiioouuuuuuuuuuaaggkkoooojggnnaaaaaaeeeeiiiioooorrrruuuusstthhaaeeooooooo"
        + "oyyaabbbbbbccddddddddddeeeeeeeeeeffgghhhhhhhhhhiiiikkkkkkllllllllmmmmmmnnnnnnnno"
        + "ooooooopppprrrrrrrrssssssssssttttttttuuuuuuuuuuvvvvwwwwwwwwwwxxxxyyzzzzzzhtwysaa"
        + "aaaaaaaaaaaaaaaaaaaaaaeeeeeeeeeeeeeeeeiiiioooooooooooooooooooooooouuuuuuuuuuuuuu"
        + "yyyyyyyyka"
}
