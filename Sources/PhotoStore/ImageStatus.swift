/// Where an image job stands, as the `image.status` column stores it.
///
/// A job is `pending` until its bytes are `stored`, or `failed` after a permanent failure; a
/// stored image whose bytes were freed to keep within `storage_limit` is `pruned`. The raw values
/// are the column's text (the schema's `CHECK` lists them); migrations keep their own literals,
/// since they are history and never change.
public enum ImageStatus: String, Sendable, CaseIterable {
    case pending
    case stored
    case failed
    case pruned
}

/// Why an image's last attempt failed, as `image.failure_class` stores it: see ``ImageQueue``.
public enum ImageFailureClass: String, Sendable, CaseIterable {
    /// Retried later, by itself: the job stays pending with a next attempt time.
    case transient
    /// Failed for good: the job is `failed` until a person requeues it.
    case permanent
}
