import Mustache
import Testing

@testable import Gallery

/// The gallery's templates escape their values with ``GalleryHTML``: the characters Mustache's
/// own HTML escaping escapes, each wherever it is, also where a combining mark follows it.
@Suite("The gallery's HTML escaping")
struct GalleryHTMLTests {
    @Test("a text is escaped as Mustache's HTML content type escapes it")
    func aTextIsEscapedAsMustacheEscapesIt() throws {
        let texts = [
            "", "plain words", #"<script>alert("x")</script> & 'quotes'"#, "&amp; is already an entity",
            "Zürich, 東京, 👩‍👩‍👧, e\u{301}", "<<>>&&\"\"''", "#0c2626",
        ]
        let mustache = try MustacheTemplate(string: "{{.}}")
        for text in texts {
            #expect(GalleryHTML().escapeText(text) == mustache.render(text), "\(text)")
        }
    }

    @Test("a quote or a bracket with a combining mark after it is escaped, which Mustache's own leaves")
    func aCharacterWithACombiningMarkIsEscaped() throws {
        // GIVEN a quote that, with the mark after it, is one Swift `Character`, not `"`: the
        // library's escaping compares characters and leaves it, and a browser, reading code
        // points, ends the attribute there (the grapheme-cluster bypass of CVE-2026-27120)
        // (Literals outside `#expect`, whose expansion cannot quote a quote with a mark after it.)
        let text = "x\"\u{301} onfocus=alert(1) autofocus x=\"\u{301}<\u{301}script>"
        let breakout = "\"\u{301} onfocus"
        let escaped = "x&quot;\u{301} onfocus=alert(1) autofocus x=&quot;\u{301}&lt;\u{301}script&gt;"
        #expect(try MustacheTemplate(string: "{{.}}").render(text).contains(breakout))

        // THEN the gallery's escaping escapes each of them
        #expect(GalleryHTML().escapeText(text) == escaped)
    }

    @Test("every template, each partial too, escapes with it")
    func everyTemplateEscapesWithIt() throws {
        let templates = [
            GalleryTemplates.head, GalleryTemplates.searchForm, GalleryTemplates.grid, GalleryTemplates.photo,
            GalleryTemplates.problem,
        ]
        for template in templates {
            #expect(template.hasPrefix(GalleryTemplates.pragma + "\n"))
        }
        // AND a partial's values are escaped as the template's: the page's title, in `head`
        let page = GalleryTemplates.shared.render(ProblemPage(title: "<b>&", message: "'"), withTemplate: "problem")
        #expect(page?.contains("<title>&lt;b&gt;&amp; · photosync</title>") == true)
        #expect(page?.contains("<p class=\"message\">&#39;</p>") == true)
    }
}
