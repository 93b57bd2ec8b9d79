import Mustache

/// The gallery's HTML, as Mustache templates compiled into the binary, so that `photosync`
/// needs no files beside it.
///
/// Every `{{value}}` is HTML-escaped (`< > & " '`), and every attribute is double-quoted, so a
/// string from the API can never become markup. No template uses the unescaped `{{{value}}}`.
/// Each template (a partial too) opens with ``pragma``: its values are escaped by
/// ``GalleryHTML``, not by the library's own escaping, which leaves a quote that a combining
/// mark follows as it is.
enum GalleryTemplates {
    /// The first line of each template.
    static let pragma = "{{% CONTENT_TYPE: \(GalleryHTML.name)}}"

    /// The templates, parsed once.
    static let shared: MustacheLibrary = {
        do {
            return try library()
        } catch {
            // The templates are constants of this module, parsed by every test run.
            preconditionFailure("the gallery's templates do not parse: \(error)")
        }
    }()

    static func library() throws -> MustacheLibrary {
        MustacheContentTypes.register(GalleryHTML(), named: GalleryHTML.name)
        var library = MustacheLibrary()
        try library.register(head, named: "head")
        try library.register(searchForm, named: "search")
        try library.register(grid, named: "grid")
        try library.register(photo, named: "photo")
        try library.register(problem, named: "problem")
        return library
    }

    static let head = """
        \(pragma)
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · photosync</title>
        <style>
        body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: #222; background: #fafafa; }
        header { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 12px 20px; background: #fff; border-bottom: 1px solid #e5e5e5; }
        header .home { font-weight: 600; color: #111; text-decoration: none; margin-right: 12px; }
        form { display: flex; flex-wrap: wrap; gap: 8px; }
        input, select, button { font: inherit; padding: 4px 8px; }
        input[type=search] { width: 22em; }
        main { padding: 20px; }
        .grid { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 12px; }
        .tile { position: relative; aspect-ratio: 4 / 3; overflow: hidden; border-radius: 6px; }
        .tile img { display: block; width: 100%; height: 100%; object-fit: cover; }
        .tile .by { position: absolute; left: 0; right: 0; bottom: 0; padding: 4px 8px; color: #fff; background: rgba(0, 0, 0, .45); font-size: 13px; text-decoration: none; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .pages { display: flex; justify-content: space-between; margin-top: 20px; }
        .message { padding: 8px 12px; background: #fff3cd; border: 1px solid #e6d28a; }
        .matches { margin: 0 0 12px; color: #555; }
        .photo { display: grid; grid-template-columns: minmax(0, 3fr) minmax(240px, 1fr); gap: 24px; }
        .photo .frame img { display: block; max-width: 100%; max-height: 80vh; height: auto; }
        .swatch { display: inline-block; width: 1em; height: 1em; vertical-align: middle; border: 1px solid #ccc; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; }
        dt { color: #666; }
        dd { margin: 0; }
        </style>
        </head>
        <body>
        """

    static let searchForm = """
        \(pragma)
        <header>
        <a class="home" href="/">photosync</a>
        <form method="get" action="/" role="search">
        <input type="search" name="q" value="{{query}}" placeholder="Search descriptions, photographers, places" aria-label="Search">
        <input type="text" name="user" value="{{user}}" placeholder="Photographer (username)" aria-label="Photographer">
        <select name="source" aria-label="Source">
        <option value="">All sources</option>
        {{#sources}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>
        {{/sources}}
        </select>
        <button type="submit">Search</button>
        </form>
        </header>
        """

    static let grid = """
        \(pragma)
        {{> head}}
        {{> search}}
        <main>
        {{#message}}<p class="message">{{.}}</p>{{/message}}
        {{#matches}}<p class="matches" id="matches">{{.}}</p>{{/matches}}
        {{#empty}}<p class="empty">No photos here.</p>{{/empty}}
        <ul class="grid" id="grid">
        {{#tiles}}<li class="tile" data-id="{{id}}" style="background-color: {{color}}">
        <a href="{{href}}">{{#image}}<img src="{{url}}" alt="{{alt}}">{{/image}}</a>
        <a class="by" href="{{photographerHref}}">{{photographer}}</a>
        </li>
        {{/tiles}}
        </ul>
        <nav class="pages">
        <span>{{#newerURL}}<a rel="prev" href="{{.}}">← Newer</a>{{/newerURL}}</span>
        <span>Page {{page}}</span>
        <span>{{#olderURL}}<a rel="next" href="{{.}}">Older →</a>{{/olderURL}}</span>
        </nav>
        </main>
        </body>
        </html>
        """

    static let photo = """
        \(pragma)
        {{> head}}
        {{> search}}
        <main class="photo">
        <div class="frame" style="background-color: {{color}}">
        {{#imageURL}}<img id="photo" src="{{.}}"{{#shape}} style="{{.}}"{{/shape}} alt="{{alt}}">{{/imageURL}}
        {{^imageURL}}{{#blurURL}}<img id="blur" src="{{.}}"{{#shape}} style="{{.}}"{{/shape}} alt="">{{/blurURL}}{{/imageURL}}
        {{^imageURL}}{{#pruned}}<p class="pruned">This image was pruned to keep the mirror within its storage limit. <a id="pruned-unsplash" href="{{attribution.photoURL}}">See it on Unsplash</a>.</p>{{/pruned}}{{^pruned}}<p>No image of this photo is stored yet.</p>{{/pruned}}{{/imageURL}}
        </div>
        <aside>
        {{#description}}<h1>{{.}}</h1>{{/description}}
        {{^description}}{{#alt}}<h1>{{.}}</h1>{{/alt}}{{/description}}
        <p class="attribution">Photo by {{#attribution.photographerURL}}<a id="photographer" href="{{.}}">{{attribution.photographer}}</a>{{/attribution.photographerURL}}{{^attribution.photographerURL}}{{attribution.photographer}}{{/attribution.photographerURL}} on <a href="{{attribution.unsplashURL}}">Unsplash</a></p>
        <p><a id="unsplash-page" href="{{attribution.photoURL}}">See this photo on unsplash.com</a></p>
        <dl>
        {{#size}}<dt>Size</dt><dd>{{.}}</dd>{{/size}}
        {{#color}}<dt>Color</dt><dd><span class="swatch" style="background-color: {{color}}"></span> {{color}}</dd>{{/color}}
        {{#created}}<dt>Taken</dt><dd>{{.}}</dd>{{/created}}
        {{#likes}}<dt>Likes</dt><dd>{{.}}</dd>{{/likes}}
        {{#location}}<dt>Location</dt><dd>{{.}}</dd>{{/location}}
        {{#exif}}<dt>{{name}}</dt><dd>{{value}}</dd>
        {{/exif}}
        {{#tags}}<dt>Tags</dt><dd id="tags">{{#links}}<a href="{{href}}">{{name}}</a> {{/links}}</dd>{{/tags}}
        <dt>Sources</dt><dd>{{#photoSources}}<a href="{{href}}">{{name}}</a> {{/photoSources}}</dd>
        {{#variants}}<dt>Stored</dt><dd><a href="{{href}}">{{name}}</a>, {{size}}</dd>
        {{/variants}}
        </dl>
        <p><a href="{{photographerHref}}">More by {{attribution.photographer}}</a></p>
        </aside>
        </main>
        </body>
        </html>
        """

    static let problem = """
        \(pragma)
        {{> head}}
        <main>
        <h1>{{title}}</h1>
        <p class="message">{{message}}</p>
        <p><a href="/">Back to the gallery</a></p>
        </main>
        </body>
        </html>
        """
}

/// HTML escaping of the characters Mustache's `HTML` content type escapes (`<`, `>`, `&`, `"`
/// and `'`), each wherever it is.
///
/// The library compares each `Character` with them: a quote that a combining mark follows
/// (`"\u{301}`) is one `Character`, not `"`, and is left as it is, while a browser reads code
/// points and ends an attribute's value there (the grapheme-cluster bypass of leaf-kit's
/// CVE-2026-27120; swift-mustache 2.1.1, the only version here, has it). This works on the
/// UTF-8 bytes: the five are ASCII, and no byte of a longer sequence is, so the bytes between
/// them are copied as they are, and a text without any is returned as it is. It is also faster:
/// the library's dictionary lookup for each character was a tenth of a gallery page's CPU.
struct GalleryHTML: MustacheContentType {
    static let name = "PHOTOSYNC_HTML"

    func escapeText(_ text: String) -> String {
        guard text.utf8.contains(where: Self.isSpecial) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 32)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
