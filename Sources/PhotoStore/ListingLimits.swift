/// The sizes at which a listing changes how it reads, the same for both drivers.
package struct ListingLimits: Sendable {
    /// A deep page by number starts from the nearest of the anchors kept every this many
    /// photos of its listing (the key of its 1st, `anchorInterval + 1`th... photo), so that no
    /// read skips more than that many rows.
    package var anchorInterval = 1_000
    /// A search by relevance with more matches than this lists them newest first, unranked.
    package var rankLimit = 1_000
    /// Sources with at most this many photos are listed from their memberships, sorted; larger
    /// ones by walking the order's index and checking each photo's membership (SQLite's choice;
    /// PostgreSQL's planner makes it for itself).
    package var smallSource = 2_000

    package init() {}

    /// Where a page at `offset` starts: the index of its anchor and the photos to skip past it;
    /// nil when the page is near enough to the start to be read from the first photo.
    package func anchor(forOffset offset: Int) -> (index: Int, offset: Int)? {
        guard offset >= 2 * anchorInterval else { return nil }
        return (offset / anchorInterval, offset % anchorInterval)
    }
}
