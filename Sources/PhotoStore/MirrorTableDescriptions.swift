import Foundation

// Each table `photosync copy` moves, described once: its name, its key, and each column with the
// field of its row type that holds it. Both drivers make their reads and writes from these.

extension MirrorSource: MirrorRow {
    public static let mapping = MirrorMapping<Self>(
        .sources, name: "source", key: "id",
        blank: MirrorSource(
            key: 0, name: "", active: false, backfillNext: nil, backfillComplete: false, catchUpNext: nil,
            catchUpBaseline: nil, lastPageAt: nil, backfillStallReason: nil, backfillStalledAt: nil, error: nil,
            errorAt: nil, objectJSON: nil, objectFetchedAt: nil),
        batch: { .sources($0) },
        fields: [
            .init("id", \.key, renumbered: true),
            .init("name", \.name),
            .init("active", \.active),
            .init("backfill_next", \.backfillNext),
            .init("backfill_complete", \.backfillComplete),
            .init("catch_up_next", \.catchUpNext),
            .init("catch_up_baseline", \.catchUpBaseline),
            .init("last_page_at", \.lastPageAt),
            .init("backfill_stall_reason", \.backfillStallReason),
            .init("backfill_stalled_at", \.backfillStalledAt),
            .init("error", \.error),
            .init("error_at", \.errorAt),
            .init("object_json", \.objectJSON, type: .json),
            .init("object_fetched_at", \.objectFetchedAt),
        ])
}

extension MirrorPhoto: MirrorRow {
    public static let mapping = MirrorMapping<Self>(
        .photos, name: "photo", key: "sequence",
        blank: MirrorPhoto(
            id: "", sequence: 0, createdAt: nil, updatedAt: nil, width: nil, height: nil, color: nil, blurHash: nil,
            description: nil, altDescription: nil, userUsername: nil, userName: nil, likes: nil, isSponsored: false,
            downloadLocation: nil, downloadTrackedAt: nil, isPlus: false, json: "", firstSeenAt: .distantPast,
            lastSeenAt: .distantPast),
        batch: { .photos($0) },
        fields: [
            .init("id", \.id),
            .init("sequence", \.sequence),
            .init("created_at", \.createdAt),
            .init("updated_at", \.updatedAt),
            .init("width", \.width),
            .init("height", \.height),
            .init("color", \.color),
            .init("blur_hash", \.blurHash),
            .init("description", \.description),
            .init("alt_description", \.altDescription),
            .init("user_username", \.userUsername),
            .init("user_name", \.userName),
            .init("likes", \.likes),
            .init("is_sponsored", \.isSponsored),
            .init("download_location", \.downloadLocation),
            .init("download_tracked_at", \.downloadTrackedAt),
            .init("is_plus", \.isPlus),
            .init("json", \.json, type: .json),
            .init("first_seen_at", \.firstSeenAt),
            .init("last_seen_at", \.lastSeenAt),
        ])
}

extension MirrorPhotoDetails: MirrorRow {
    public static let mapping = MirrorMapping<Self>(
        .photoDetails, name: "photo_details", key: "photo_id",
        blank: MirrorPhotoDetails(photoID: "", requestedAt: nil, json: nil, fetchedAt: nil),
        batch: { .photoDetails($0) },
        fields: [
            .init("photo_id", \.photoID),
            .init("requested_at", \.requestedAt),
            .init("json", \.json, type: .json),
            .init("fetched_at", \.fetchedAt),
        ])
}

extension MirrorMembership: MirrorRow {
    public static let mapping = MirrorMapping<Self>(
        .memberships, name: "photo_source", key: "id",
        blank: MirrorMembership(key: 0, photoID: "", sourceName: "", firstSeenAt: .distantPast, position: 0),
        batch: { .memberships($0) },
        fields: [
            .init("id", \.key, renumbered: true),
            .init("photo_id", \.photoID),
            .init(
                "source_name", \.sourceName,
                reference: MirrorReference(column: "source_id", table: "source", naming: "name")),
            .init("first_seen_at", \.firstSeenAt),
            .init("position", \.position),
        ])
}

extension MirrorImage: MirrorRow {
    public static let mapping = MirrorMapping<Self>(
        .images, name: "image", key: "id",
        blank: MirrorImage(
            key: 0, photoID: "", variant: "", status: "", sourceURL: "", attempts: 0, lastError: nil,
            nextAttemptAt: nil, failureClass: nil, contentType: nil, byteCount: nil, sha256: nil, fetchedAt: nil,
            bytes: nil),
        batch: { .images($0) },
        fields: [
            .init("id", \.key, renumbered: true),
            .init("photo_id", \.photoID),
            .init("variant", \.variant),
            .init("status", \.status),
            .init("source_url", \.sourceURL),
            .init("attempts", \.attempts),
            .init("last_error", \.lastError),
            .init("next_attempt_at", \.nextAttemptAt),
            .init("failure_class", \.failureClass),
            .init("content_type", \.contentType),
            .init("byte_count", \.byteCount),
            .init("sha256", \.sha256),
            .init("fetched_at", \.fetchedAt),
            .init("bytes", \.bytes),
        ])
}

extension MirrorRejectedPhoto: MirrorRow {
    public static let mapping = MirrorMapping<Self>(
        .rejectedPhotos, name: "rejected_photo", key: "id",
        blank: MirrorRejectedPhoto(
            key: 0, photoID: nil, json: "", reason: "", firstSeenAt: .distantPast, lastSeenAt: .distantPast),
        batch: { .rejectedPhotos($0) },
        fields: [
            .init("id", \.key, renumbered: true),
            .init("photo_id", \.photoID),
            .init("json", \.json, type: .json),
            .init("reason", \.reason),
            .init("first_seen_at", \.firstSeenAt),
            .init("last_seen_at", \.lastSeenAt),
        ])
}

extension MirrorDownloadRequest: MirrorRow {
    public static let mapping = MirrorMapping<Self>(
        .downloadRequests, name: "download_request", key: "photo_id",
        blank: MirrorDownloadRequest(photoID: "", requestedAt: .distantPast),
        batch: { .downloadRequests($0) },
        fields: [
            .init("photo_id", \.photoID),
            .init("requested_at", \.requestedAt),
        ])
}
