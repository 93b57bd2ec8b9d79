/// The image sizes Unsplash serves for every photo (`urls.<variant>`).
public enum ImageVariant: String, Sendable, CaseIterable, Codable {
    /// The original file: several MB to tens of MB.
    case raw
    /// Full-size JPEG: several MB.
    case full
    /// 1080 px wide, typically 100-400 KB.
    case regular
    /// 400 px wide.
    case small
    /// 200 px wide.
    case thumb
}
