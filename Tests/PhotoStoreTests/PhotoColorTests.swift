import PhotoStore
import Testing

@Suite struct PhotoColorTests {
    static let named: [(hex: String, colors: Set<PhotoColor>)] = [
        ("#ff0000", [.red]), ("#ff8000", [.orange]), ("#ffff00", [.yellow]), ("#00ff00", [.green]),
        ("#00ffff", [.teal]), ("#0000ff", [.blue]), ("#8000ff", [.purple]), ("#ff00ff", [.magenta]),
        ("#ff0040", [.red]), ("#ff0080", [.magenta]), ("#808080", [.blackAndWhite]),
        ("#ffffff", [.white, .blackAndWhite]), ("#f2eee6", [.white, .blackAndWhite]),
        ("#000000", [.black, .blackAndWhite]),
        ("#0c2626", [.black, .blackAndWhite]), ("#264059", [.blue]), ("D9A640", [.orange]),
        ("red", []), ("#12345", []), ("", []), ("#gggggg", []), ("#1234567", []), ("+abcde", []), ("#-00000", []),
    ]

    @Test func aDominantColourHasTheNamesUnsplashFiltersBy() {
        for (hex, colors) in Self.named {
            #expect(Set(PhotoColor.allCases.filter { $0.matches(hex: hex) }) == colors, "\(hex)")
        }
    }

    @Test func everyColourIsBlackWhiteOrExactlyOneHue() {
        let hues = PhotoColor.allCases.filter { ![.blackAndWhite, .black, .white].contains($0) }
        func pair(_ channel: Int) -> String {
            channel < 16 ? "0" + String(channel, radix: 16) : String(channel, radix: 16)
        }
        let steps = Array(stride(from: 0, through: 255, by: 15))
        for red in steps {
            for green in steps {
                for blue in steps {
                    let hex = "#" + pair(red) + pair(green) + pair(blue)
                    let names = hues.filter { $0.matches(hex: hex) }
                    let extreme = [PhotoColor.blackAndWhite, .black, .white].contains { $0.matches(hex: hex) }
                    #expect(names.count == (extreme ? 0 : 1), "\(hex): \(names)")
                }
            }
        }
    }
}
