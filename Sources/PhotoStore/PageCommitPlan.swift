/// What a page's commit writes, decided once for both drivers from what the database already
/// holds (``SyncLedger/commitPage(_:rejected:variant:moreVariants:source:now:cursor:)``): each
/// driver reads the facts this needs, then writes what it says, in the one transaction that
/// also moves the cursor.
///
/// - A photo the page lists twice is stored once, at its first place, with the values of its
///   last listing (the API's answer as it stands last).
/// - A photo already stored keeps its sequence and first sighting; a new one takes the next
///   sequence in page order, so sequences have no gaps while one writer commits.
/// - The photos the source did not list yet join it once each, in page order, at the positions
///   ``MembershipPositions`` gives the walk.
package struct PageCommitPlan: Sendable {
    /// Each photo of the page once, in the order of its first listing, with its last listing's
    /// values and its sequence.
    package let photos: [Planned]
    /// The stored photos' sequences, before the commit.
    package let existingSequences: [String: Int64]
    /// The source's memberships of the page's photos, before the commit.
    package let existingMemberships: [String: Int64]
    /// The photos that join the source, in page order.
    package let joining: [String]

    /// - Parameters:
    ///   - page: the photos as the page lists them.
    ///   - stored: the sequence of each of them the database holds already.
    ///   - memberships: the membership id of each of them the source lists already.
    ///   - maxSequence: the highest sequence stored (0 when none is).
    package init(page: [PhotoRecord], stored: [String: Int64], memberships: [String: Int64], maxSequence: Int64) {
        var order: [String] = []
        var latest: [String: PhotoRecord] = [:]
        var sequences = stored
        var next = maxSequence + 1
        for photo in page where latest.updateValue(photo, forKey: photo.id) == nil {
            order.append(photo.id)
            if sequences[photo.id] == nil {
                sequences[photo.id] = next
                next += 1
            }
        }
        photos = order.compactMap { id in
            latest[id].map { Planned(record: $0, sequence: sequences[id] ?? 0, isStored: stored[id] != nil) }
        }
        existingSequences = stored
        existingMemberships = memberships
        joining = order.filter { memberships[$0] == nil }
    }

    /// A photo of the page as the commit writes it.
    package struct Planned: Sendable {
        package let record: PhotoRecord
        /// Its sequence: a stored photo's own, a new one's next in page order.
        package let sequence: Int64
        /// Whether the database holds it already: its API's columns are updated, the rest stays.
        package let isStored: Bool
    }

    /// The ids of the page's photos, each once.
    package var ids: [String] { photos.map(\.record.id) }

    /// The oldest photo already stored: image walks that passed it are reopened from it, since
    /// its listing may name images they did not see.
    package var oldestStored: Int64? { existingSequences.values.min() }

    /// What the commit learned, as the cursor's closure and the caller see it.
    package func commit(newlyRejected: [RejectedPhoto]) -> PageCommit {
        PageCommit(
            existingSequences: existingSequences, existingMemberships: existingMemberships,
            newlyRejected: newlyRejected)
    }
}

/// Where a page's new memberships go in its source's own order, the listing that `list
/// --source` and the mirror's lists read.
///
/// A backfill page goes after everything the source lists, at 1 or above. A catch-up walk goes
/// before everything the source listed when it began: its baseline names it, and gives it the
/// block of positions `[-(baseline + 1) * catchUpBlock, -baseline * catchUpBlock)`, filled in
/// page order. A later walk has a higher baseline, so a lower block, and a walk resumed after a
/// crash finds its own block, so its pages stay in order without any state but its cursor.
package enum MembershipPositions {
    /// How many memberships one catch-up walk can add to a source: the size of its block of
    /// positions. More than Unsplash lists in any source.
    package static let catchUpBlock: Int64 = 1 << 28

    /// The positions the walk of `change` fills: the driver reads the last position the source
    /// took in them (any position, when nil) and gives it to ``first(after:in:)``.
    /// - Throws: ``BaselineOutOfRange`` for a baseline whose block no `Int64` holds.
    package static func block(for change: CursorChange) throws(BaselineOutOfRange) -> Range<Int64>? {
        switch change {
        case .backfill:
            return nil
        case .catchUp(_, let baseline):
            guard baseline >= 0, baseline < Int64.max / catchUpBlock else { throw BaselineOutOfRange(baseline) }
            let start = -(baseline + 1) * catchUpBlock
            return start..<(start + catchUpBlock)
        }
    }

    /// The first position of the page's new memberships, after `last` (the source's last
    /// position in `block`, nil when it took none there); the others follow it one by one.
    package static func first(after last: Int64?, in block: Range<Int64>?) -> Int64 {
        guard let block else { return max(last ?? 0, 0) + 1 }
        return last.map { $0 + 1 } ?? block.lowerBound
    }

    /// A catch-up baseline out of the positions' range: a database that no walk wrote.
    package struct BaselineOutOfRange: Error, CustomStringConvertible {
        package let baseline: Int64
        init(_ baseline: Int64) { self.baseline = baseline }
        package var description: String { "catch-up baseline \(baseline) is out of range for positions" }
    }
}
