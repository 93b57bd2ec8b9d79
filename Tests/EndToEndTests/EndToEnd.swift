import Testing

/// Every end-to-end suite, one at a time: each runs the real binaries (photosync, its stub,
/// Chromium) as child processes, and several at once on a 2-core machine starved each other
/// and the unit tests running beside them until time limits fired. Unit tests still run in
/// parallel with this chain.
@Suite(.serialized) enum EndToEnd {}
