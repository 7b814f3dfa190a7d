import Foundation

/// The pages `canteen serve` serves (`/kds`, `/kiosk`, `/board`, `/app`) and the files they load: plain
/// HTML, CSS and JavaScript kept in `Assets/`, read once into memory.
public struct WebAssets: Sendable {
    /// One file of `Assets/`, ready to serve.
    public struct Asset: Sendable {
        public let name: String
        public let bytes: [UInt8]
        public let contentType: String
        /// A strong validator of the bytes (`"…"`), stable between runs.
        public let etag: String
    }

    /// The pages, each an HTML template `NAME.html` served at `/NAME`.
    public static let pageNames = ["kds", "kiosk", "board", "app", "ops"]

    /// Every file by name (`kds.js`), pages' templates included.
    public let assets: [String: Asset]

    /// Reads every file of `directory` (not its subfolders); throws when a page is missing or a
    /// file has a type this server does not serve.
    public init(directory: URL) throws(WebAssetsError) {
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        } catch {
            throw WebAssetsError(path: directory.path, problem: "cannot list the folder: \(error.localizedDescription)")
        }
        var assets: [String: Asset] = [:]
        for file in files where !file.lastPathComponent.hasPrefix(".") {
            guard let type = Self.contentTypes[file.pathExtension] else {
                throw WebAssetsError(path: file.path, problem: "'.\(file.pathExtension)' is not a type the pages use")
            }
            guard let data = try? Data(contentsOf: file) else {
                throw WebAssetsError(path: file.path, problem: "cannot be read")
            }
            let bytes = [UInt8](data)
            assets[file.lastPathComponent] = Asset(
                name: file.lastPathComponent, bytes: bytes, contentType: type,
                etag: "\"\(Self.hash(bytes))\"")
        }
        for page in Self.pageNames where assets["\(page).html"] == nil {
            throw WebAssetsError(path: directory.path, problem: "\(page).html is missing")
        }
        self.assets = assets
    }

    /// The file `name` (`kds.css`), or nil.
    public func asset(named name: String) -> Asset? { assets[name] }

    /// The HTML template of a page (`kds`), or nil when there is no such page.
    public func template(page: String) -> String? {
        guard Self.pageNames.contains(page), let asset = assets["\(page).html"] else { return nil }
        return String(decoding: asset.bytes, as: UTF8.self)
    }

    // MARK: - The files shipped with Canteen

    /// The files of this target's `Assets/` folder: from the resource bundle next to the
    /// executable, else installed in `PREFIX/share/canteen/Assets` for `PREFIX/bin/canteen` (the
    /// Debian package), else from the source tree this binary was built from.
    public static let bundled: Result<WebAssets, WebAssetsError> = {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("Canteen_CanteenWeb.resources/Assets"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("share/canteen/Assets"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Assets"),
        ]
        var firstError: WebAssetsError?
        for directory in candidates {
            guard FileManager.default.fileExists(atPath: directory.path) else { continue }
            do throws(WebAssetsError) {
                return .success(try WebAssets(directory: directory))
            } catch {
                firstError = firstError ?? error
            }
        }
        return .failure(
            firstError
                ?? WebAssetsError(
                    path: candidates[0].path,
                    problem: "no Assets folder here, at \(candidates[1].path) nor at \(candidates[2].path)"))
    }()

    static let contentTypes = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/x-icon",
        "webmanifest": "application/manifest+json",
    ]

    /// FNV-1a, 64-bit, as hex.
    static func hash(_ bytes: [UInt8]) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        return String(value, radix: 16)
    }
}

/// The page files could not be read: which file or folder, and why.
public struct WebAssetsError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let problem: String

    public var description: String { "\(path): \(problem)" }
}
