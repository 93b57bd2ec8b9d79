import Foundation
import PhotoStore
import PhotoSync
import UnsplashAPI

/// What `status` says of the disk: the storage budget, the free disk against the reserve, and the
/// database's files. The reserve is judged as `run` judges it, from the same settings and the
/// same file system, so `status` says why downloads (and, below half the reserve, pages) are
/// paused while `run` pauses them.
struct StatusStorage: Equatable {
    var storageLimit: Int64?
    var databaseBytes: Int64
    var walBytes: Int64
    var disk: DiskSpace?
    var reserveBytes: Int64?
    var pause: DownloadPause?
    var pagePause: PagePause?
    /// The database is a server's (PostgreSQL), whose files and disk are its own: no file
    /// sizes, no free disk beside it.
    var onServer = false
    /// Who holds the writer lease, on a server's database.
    var writerLease: WriterLeaseHolder?
    /// The database is a read-only standby of another, this far behind it.
    var standby: StandbyState?

    init(
        storageLimit: Int64?, sizes: DatabaseFileSizes, disk: DiskSpace?, reserve: FreeDiskReserve
    ) {
        self.storageLimit = storageLimit
        databaseBytes = sizes.database
        walBytes = sizes.wal
        self.disk = disk
        reserveBytes = disk.map { reserve.bytes(ofDiskOf: $0.total) }
        pause = disk.flatMap { DownloadPause.judging($0, reserve: reserve) }
        pagePause = disk.flatMap { PagePause.judging($0, reserve: reserve) }
    }

    /// For `store`, opened at `location`, with the settings `options` resolve. A setting that
    /// does not resolve is left out (its default is used): it stops `run`, not `status`.
    init(store: PhotoStore, at location: DatabaseLocation, options: DatabaseOptions, environment: [String: String]) {
        let resolver = SettingsResolver(environment: environment)
        let limit = try? resolver.resolve(\.storageLimit, flags: [:], configPath: options.configPath)
        let reserve = (try? resolver.resolve(\.minFreeDisk, flags: [:], configPath: options.configPath)) ?? .standard
        switch location {
        case .file(let path):
            self.init(
                storageLimit: limit, sizes: store.files?.fileSizes ?? DatabaseFileSizes(database: 0, wal: 0),
                disk: DiskSpace.probe(forFileAt: path),
                reserve: reserve)
        case .postgres:
            self.init(storageLimit: limit, sizes: DatabaseFileSizes(database: 0, wal: 0), disk: nil, reserve: reserve)
            onServer = true
        }
    }

    var jsonFields: [String: JSONValue] {
        [
            "storage_limit_bytes": storageLimit.map { .int($0) } ?? .null,
            "database_bytes": onServer ? .null : .int(databaseBytes),
            "wal_bytes": onServer ? .null : .int(walBytes),
            "disk_free_bytes": disk.map { .int($0.available) } ?? .null,
            "disk_reserve_bytes": reserveBytes.map { .int($0) } ?? .null,
            "downloads_paused": pause.map { .string($0.description) } ?? .null,
            "pages_paused": pagePause.map { .string($0.description) } ?? .null,
            "writer": writerLease.map { lease in
                .object([
                    "host": .string(lease.host), "pid": .int(Int64(lease.pid)), "epoch": .int(lease.epoch),
                    "renewed_seconds_ago": .int(lease.renewedAgo.components.seconds), "expired": .bool(lease.expired),
                ])
            } ?? .null,
            "standby": standby.map { standby in
                .object([
                    "lag_seconds": standby.lagSeconds.map { .double($0) } ?? .null,
                    "receiving": .bool(standby.receiving),
                ])
            } ?? .null,
        ]
    }

    func lines(bytesStored: Int64) -> [String] {
        var lines: [String] = []
        if let storageLimit {
            lines.append("storage limit   \(ByteCount.text(bytesStored)) of \(ByteCount.text(storageLimit)) used")
        }
        if onServer {
            lines.append(
                "database        PostgreSQL"
                    + (standby.map { ", \($0) (read-only)" } ?? " (its files and disk are the server's)"))
            if let lease = writerLease {
                let ago = "\(lease.renewedAgo.components.seconds) s ago"
                lines.append(
                    lease.expired
                        ? "writer          none (the last, PID \(lease.pid) on \(lease.host), epoch \(lease.epoch), "
                            + "renewed its lease \(ago))"
                        : "writer          PID \(lease.pid) on \(lease.host), epoch \(lease.epoch), lease renewed \(ago)"
                )
            }
        } else {
            lines.append(
                "database file   \(ByteCount.text(databaseBytes)), write-ahead log \(ByteCount.text(walBytes))")
        }
        if let disk, let reserveBytes {
            lines.append(
                "free disk       \(ByteCount.text(disk.available)), reserve \(ByteCount.text(reserveBytes))"
                    + (pause.map { "; \($0)" } ?? "") + (pagePause.map { "; \($0)" } ?? ""))
        }
        return lines
    }
}
