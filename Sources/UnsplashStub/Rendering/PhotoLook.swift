/// What a photo shows and its frame: the words of its `alt_description` and its `width` and
/// `height`. The photo's JSON says them and its picture paints them, so both read them from
/// here, drawn from the seed and the id alone: an image is the same whoever asks for it, and
/// whether or not the photo is in the feed.
struct PhotoLook: Sendable, Equatable {
    let subject: Subject
    let relation: Relation
    let place: Place
    let width: Int
    let height: Int

    /// The look of photo `id`.
    init(seed: UInt64, id: String) {
        self = Self.drawn(seed: seed, id: id).look
    }

    private init(subject: Subject, relation: Relation, place: Place, width: Int, height: Int) {
        (self.subject, self.relation, self.place, self.width, self.height) = (subject, relation, place, width, height)
    }

    /// The look of photo `id`; the draw that chose its photographer (or, for an advertisement,
    /// its sponsor), which comes between the look's words and its frame; and the generator its
    /// JSON goes on drawing from (the dates, the description, the likes), in the order they
    /// always came, so that a seed keeps its photos.
    static func drawn(seed: UInt64, id: String) -> (look: PhotoLook, photographer: UInt64, rest: SplitMix64) {
        var generator = Determinism.generator("photo:\(seed):\(id)")
        let subject = generator.pick(Subject.allCases)
        let relation = generator.pick(Relation.allCases)
        let place = generator.pick(Place.allCases)
        let photographer = generator.next()
        let isPortrait = generator.next() % 3 != 0
        let (long, short) = (generator.int(in: 4_000...9_000), generator.int(in: 2_600...5_900))
        let look = PhotoLook(
            subject: subject, relation: relation, place: place, width: isPortrait ? short : long,
            height: isPortrait ? long : short)
        return (look, photographer, generator)
    }

    /// A photographer's avatar (`profile-<user id>`): someone in front of a wall, square.
    static func portrait(seed: UInt64, name: String) -> PhotoLook {
        var generator = Determinism.generator("portrait:\(seed):\(name)")
        return PhotoLook(
            subject: generator.next() % 2 == 0 ? .man : .womanInYellowCoat, relation: .standingInFrontOf,
            place: generator.pick([.brickWall, .window, .busyStreet]), width: 400, height: 400)
    }

    /// "a red car parked next to a lake"
    var altDescription: String {
        subject.rawValue + " " + relation.rawValue + " " + place.rawValue
    }

    /// The photo's subjects, in the order the stub always picked them (so a seed keeps its photos).
    enum Subject: String, CaseIterable, Sendable {
        case redCar = "a red car"
        case womanInYellowCoat = "a woman in a yellow coat"
        case man = "a man"
        case blackDog = "a black dog"
        case sleepingCat = "a sleeping cat"
        case mountainRange = "a mountain range"
        case citySkyline = "a city skyline"
        case ramen = "a bowl of ramen"
        case cabin = "a wooden cabin"
        case sailboat = "a small sailboat"
        case sunflowers = "a field of sunflowers"
        case lighthouse = "a lighthouse"
        case bicycle = "an old bicycle"
        case coffee = "a cup of coffee"
        case snowyForest = "a snowy forest"
        case desertRoad = "a desert road"
    }

    enum Relation: String, CaseIterable, Sendable {
        case parkedNextTo = "parked next to"
        case standingInFrontOf = "standing in front of"
        case sittingOn = "sitting on"
        case seenFrom = "seen from"
        case reflectedIn = "reflected in"
        case under = "under"
    }

    enum Place: String, CaseIterable, Sendable {
        case lake = "a lake"
        case brickWall = "a brick wall"
        case ocean = "the ocean"
        case busyStreet = "a busy street"
        case mountain = "a mountain"
        case nightSky = "the night sky"
        case woodenTable = "a wooden table"
        case window = "a window"
        case bridge = "a bridge"
        case rain = "the rain"
    }
}
