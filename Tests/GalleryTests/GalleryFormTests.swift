import HummingbirdCore
import Testing

@testable import Gallery

@Suite struct GalleryFormTests {
    /// What a read of a variant gives: the value, or that the query was refused.
    private static func outcome(_ read: () throws(GalleryError) -> String?) -> String {
        do {
            return "value \(String(describing: try read()))"
        } catch {
            return "refused"
        }
    }

    @Test(
        "an image's variant is read from its query as the form decoder reads it",
        arguments: [
            "", "variant=regular", "variant=small", "variant=Regular", "variant=%72egular", "variant=+small+",
            "variant=", "variant=regular&variant=small", "variant=%zz", "page=2&variant=thumb", "variant=raw&x=1",
        ])
    func variantFastPath(_ query: String) {
        let uri = URI("/images/a" + (query.isEmpty ? "" : "?" + query))
        let fast = Self.outcome { () throws(GalleryError) in try GalleryForm.variant(of: uri) }
        let decoded = Self.outcome { () throws(GalleryError) in try GalleryForm(uri).variant }
        #expect(fast == decoded)
    }
}
