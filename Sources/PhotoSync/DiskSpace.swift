import Foundation
import PhotoStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Room on the file system that holds the database, as the sync sees it.
public struct DiskSpace: Sendable, Equatable {
    /// Bytes this process may still write there.
    public var available: Int64
    /// The file system's size (or the file-size limit, when that is smaller).
    public var total: Int64

    public init(available: Int64, total: Int64) {
        self.available = available
        self.total = total
    }

    /// Asks the file system holding `path` (with `statvfs`) how much room is left to an
    /// unprivileged writer. A file-size limit (`RLIMIT_FSIZE`, such as `prlimit --fsize` or a
    /// quota set as one) ends the file as a full disk would, so it counts too: what is left
    /// below it, after the larger of the database and its WAL. Nil when the file system cannot
    /// be asked.
    public static func probe(forFileAt path: String) -> DiskSpace? {
        let directory = (path as NSString).deletingLastPathComponent
        var info = statvfs()
        guard statvfs(directory.isEmpty ? "." : directory, &info) == 0 else { return nil }
        let blockSize = Int64(info.f_frsize)
        var space = DiskSpace(available: Int64(info.f_bavail) * blockSize, total: Int64(info.f_blocks) * blockSize)
        var limit = rlimit()
        // RLIM_INFINITY is all ones: above Int64.max, so "no limit" fails the second test.
        if getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int64.max) {
            let cap = Int64(limit.rlim_cur)
            let largest = max(fileSize(path), fileSize(path + "-wal"))
            space.available = min(space.available, max(0, cap - largest))
            space.total = min(space.total, cap)
        }
        return space
    }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}

/// The free space `min_free_disk` keeps on the database's file system: image downloads pause
/// below it.
public enum FreeDiskReserve: Sendable, Equatable {
    /// 1 GiB, or 5% of the file system when that is smaller.
    case standard
    case bytes(Int64)

    /// The reserve in bytes on a file system of `total` bytes.
    public func bytes(ofDiskOf total: Int64) -> Int64 {
        switch self {
        case .standard: min(1 << 30, total / 20)
        case .bytes(let bytes): bytes
        }
    }
}

/// Why image downloads are paused: the free disk is below the reserve.
public struct DownloadPause: Sendable, Equatable, CustomStringConvertible {
    public var freeBytes: Int64
    public var reserveBytes: Int64

    public init(freeBytes: Int64, reserveBytes: Int64) {
        self.freeBytes = freeBytes
        self.reserveBytes = reserveBytes
    }

    /// "downloads paused: 800 MB free, below the 1.07 GB reserve (min_free_disk)".
    public var description: String {
        "downloads paused: \(ByteCount.text(freeBytes)) free, below the \(ByteCount.text(reserveBytes)) "
            + "reserve (min_free_disk)"
    }

    /// The pause `space` calls for under `reserve`; nil when there is room.
    public static func judging(_ space: DiskSpace, reserve: FreeDiskReserve) -> DownloadPause? {
        let reserveBytes = reserve.bytes(ofDiskOf: space.total)
        guard space.available < reserveBytes else { return nil }
        return DownloadPause(freeBytes: space.available, reserveBytes: reserveBytes)
    }
}

/// Why pages pause: the free disk is below the floor, half of the `min_free_disk` reserve. Below
/// the reserve only downloads pause; metadata alone would otherwise fill the disk too.
public struct PagePause: Sendable, Equatable, CustomStringConvertible {
    public var freeBytes: Int64
    public var floorBytes: Int64

    /// "pages paused: 400 MB free, below the 537 MB floor (half of min_free_disk)".
    public var description: String {
        "pages paused: \(ByteCount.text(freeBytes)) free, below the \(ByteCount.text(floorBytes)) "
            + "floor (half of min_free_disk)"
    }

    /// The floor under `reserve` on a file system of `total` bytes: half the reserve.
    public static func floor(of reserve: FreeDiskReserve, ofDiskOf total: Int64) -> Int64 {
        reserve.bytes(ofDiskOf: total) / 2
    }

    /// The pause `space` calls for under `reserve`; nil when there is room (always with a
    /// reserve of 0).
    public static func judging(_ space: DiskSpace, reserve: FreeDiskReserve) -> PagePause? {
        let floorBytes = floor(of: reserve, ofDiskOf: space.total)
        guard space.available < floorBytes else { return nil }
        return PagePause(freeBytes: space.available, floorBytes: floorBytes)
    }
}
