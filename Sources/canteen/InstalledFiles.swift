import Foundation

/// Where an installed Canteen keeps its files: `/usr/bin/canteen` reads the sample menus and
/// the locales from `/usr/share/canteen/Menus` and `/usr/share/canteen/Locales` (the prefix is
/// the executable's, so `/usr/local` or an unpacked tarball work too), without flags.
enum InstalledFiles {
    /// `given` when it exists or is not the default; for the default (`Menus`, `Locales`,
    /// relative to the working folder, as in a checkout) that is missing, the installed copy.
    static func folder(_ given: String, default name: String) -> URL {
        let url = URL(fileURLWithPath: given)
        guard given == name, !FileManager.default.fileExists(atPath: url.path) else { return url }
        let installed = share.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: installed.path) ? installed : url
    }

    /// `PREFIX/share/canteen` for `PREFIX/bin/canteen`.
    static var share: URL {
        executable.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/canteen")
    }

    /// The running executable, symbolic links resolved.
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    }

    /// Whether this executable is an installed one rather than a build in a checkout's `.build`.
    static var isInstalled: Bool { !executable.path.contains("/.build") }

    /// How to run `canteen ARGUMENTS` as the user running this one, for the start-up hint.
    static func command(_ arguments: String) -> String {
        guard isInstalled else { return "\"$(swift build --show-bin-path)/canteen\" \(arguments)" }
        let user = getuid() == 0 ? nil : getpwuid(getuid()).flatMap { String(validatingCString: $0.pointee.pw_name) }
        return (user.map { "sudo -u \($0) " } ?? "") + "\(executable.path) \(arguments)"
    }
}
