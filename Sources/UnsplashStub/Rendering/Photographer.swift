/// A user of the stub's Unsplash: the photographers of the feed and the advertisers.
/// Fields are nullable exactly where Unsplash's are, and some text is not ASCII, because real
/// data is like that and a client's decoder must cope with it.
struct Photographer: Sendable {
    let id: String
    let username: String
    let firstName: String
    let lastName: String?
    let bio: String?
    let location: String?
    let instagramUsername: String?
    let forHire: Bool
    let totalPhotos: Int
    let totalLikes: Int
    let totalCollections: Int
    let totalPromotedPhotos: Int
    /// Seconds since 1970.
    let updatedAt: Int

    var name: String {
        [firstName, lastName].compactMap { $0 }.joined(separator: " ")
    }

    /// The photographers of feed photos, the same for every seed.
    static func photographers(seed: UInt64) -> [Photographer] {
        let people: [(username: String, first: String, last: String?, bio: String?, location: String?)] = [
            ("anasouza", "Ana", "Souza", "Street and travel photographer. Say “olá” on Instagram.", "Lisboa, Portugal"),
            ("kenji_w", "Kenji", "Watanabe", "山と海の写真を撮っています。", "Sapporo, Japan"),
            ("zoe.angstrom", "Zoë", "Ångström", nil, "Malmö"),
            ("mika", "Mika", nil, "Film only — Portra 400 and a Pentax 67.", nil),
            ("obi_nwosu", "Obinna", "Nwosu", "Architecture, shadows, lines.", "Lagos, Nigeria"),
            ("lucia.ferrari", "Lucía", "Ferrari", nil, nil),
            ("sam", "Sam", "Taylor", "I photograph dogs. That’s it. That’s the bio.", "Leeds, UK"),
            ("jiwoo", "지우", "김", "서울의 밤을 기록합니다.", "Seoul"),
            ("noor.h", "Noor", "Haddad", "Landscapes from the Levant and beyond.", "Amman, Jordan"),
            ("pl_dubois", "Pierre-Louis", "Dubois", nil, "Lyon, France"),
            ("aroha", "Aroha", "Ngata", "Kia ora! Coastlines of Aotearoa.", "Gisborne, New Zealand"),
            ("dmitri.v", "Dmitri", "Volkov", "Winter is my favourite season.", nil),
        ]
        return people.enumerated().map { index, person in
            make(
                seed: seed, key: "photographer:\(index)", username: person.username, firstName: person.first,
                lastName: person.last, bio: person.bio, location: person.location)
        }
    }

    /// The advertisers whose photos are injected into pages.
    static func sponsors(seed: UInt64) -> [Photographer] {
        [
            make(
                seed: seed, key: "sponsor:0", username: "northwindoutdoor", firstName: "Northwind Outdoor",
                lastName: nil, bio: "Gear for the long way round. Made to last.", location: "Bergen, Norway"),
            make(
                seed: seed, key: "sponsor:1", username: "brightlinecoffee", firstName: "Brightline Coffee",
                lastName: nil, bio: "Roasted slowly, served quickly.", location: "Portland, OR"),
        ]
    }

    private static func make(
        seed: UInt64, key: String, username: String, firstName: String, lastName: String?,
        bio: String?, location: String?
    ) -> Photographer {
        var generator = Determinism.generator("\(key):\(seed)")
        let hasInstagram = generator.next() % 3 != 0
        return Photographer(
            id: Determinism.identifier("\(key):\(seed)"),
            username: username,
            firstName: firstName,
            lastName: lastName,
            bio: bio,
            location: location,
            instagramUsername: hasInstagram ? username : nil,
            forHire: generator.next() % 2 == 0,
            totalPhotos: generator.int(in: 12...2_400),
            totalLikes: generator.int(in: 0...900),
            totalCollections: generator.int(in: 0...40),
            totalPromotedPhotos: generator.int(in: 0...120),
            updatedAt: Timestamps.seconds(year: 2024, month: 3, day: 1) + generator.int(in: 0...2_000_000))
    }
}
