// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Canteen",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "canteen", targets: ["canteen"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // jwt-kit needs swift-crypto 4.1 or later; everything else accepts 3.x or 4.x.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Tests only: reads openapi.yaml for the contract tests.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Tracing: the API at the call sites; OTLP/HTTP export (swift-otel) in the executable only.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Signing people in (OpenID Connect): JWS and JWKS.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
    ],
    targets: [
        // MARK: - Libraries
        .target(
            name: "CanteenJSON",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenCore",
            dependencies: ["CanteenJSON", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenFormat",
            dependencies: ["CanteenCore", "CanteenJSON"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenRandom",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Beacons",
            dependencies: ["CanteenRandom"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NFC",
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CPCSC",
            pkgConfig: "libpcsclite",
            providers: [.apt(["libpcsclite-dev"])]
        ),
        .target(
            name: "CardReader",
            dependencies: ["NFC", "CPCSC"],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CBlueZ",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        .target(
            name: "BlueZScanner",
            dependencies: [
                "Beacons",
                "CBlueZ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenPersistence",
            dependencies: [
                "CanteenCore", "CanteenJSON",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenStore",
            dependencies: [
                "CanteenCore",
                "CanteenJSON",
                "CanteenPersistence",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenPostgres",
            dependencies: [
                "CanteenCore",
                "CanteenJSON",
                "CanteenPersistence",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenWeb",
            resources: [.copy("Assets")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenNotify",
            dependencies: [
                "CanteenCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenIdentity",
            dependencies: [
                "CanteenCore",
                "CanteenJSON",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenAPI",
            dependencies: [
                "CanteenCore",
                "CanteenJSON",
                "CanteenIdentity",
                "CanteenFormat",
                "CanteenWeb",
                "Beacons",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenApp",
            dependencies: [
                "CanteenCore",
                "CanteenJSON",
                "CanteenStore",
                "CanteenPostgres",
                "CanteenPersistence",
                .product(name: "Crypto", package: "swift-crypto"),
                "CanteenAPI",
                "CanteenNotify",
                "CanteenFormat",
                "Beacons",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenSimulation",
            dependencies: [
                "CanteenCore",
                "CanteenRandom",
                "CanteenJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "canteen",
            dependencies: [
                "CanteenApp",
                "CanteenCore",
                "CanteenStore",
                "CanteenJSON",
                "CanteenFormat",
                "CanteenPostgres",
                "CanteenSimulation",
                "CanteenAPI",
                "CanteenIdentity",
                "CanteenNotify",
                "Beacons",
                "BlueZScanner",
                "CardReader",
                "NFC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BenchFigures",
            path: "Benchmarks/BenchFigures",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "format-bench",
            dependencies: ["CanteenCore", "CanteenFormat", "BenchFigures"],
            path: "Benchmarks/FormatBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "beacon-bench",
            dependencies: ["Beacons", "BenchFigures"],
            path: "Benchmarks/BeaconBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ranging-trials",
            dependencies: ["Beacons"],
            path: "Benchmarks/RangingTrials",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "server-bench",
            dependencies: ["BenchFigures", "CEpoll"],
            path: "Benchmarks/ServerBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "bare-hummingbird",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/BareHummingbird",
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CEpoll",
            path: "Benchmarks/CEpoll"
        ),
        .target(
            name: "FuzzTargets",
            dependencies: ["Beacons", "NFC", "CanteenCore", "CanteenJSON"],
            path: "Benchmarks/FuzzTargets",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "canteen-fuzz",
            dependencies: ["FuzzTargets"],
            path: "Benchmarks/CanteenFuzz",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CanteenTestSupport",
            dependencies: [
                "CanteenCore",
                "CanteenJSON",
                "CanteenStore",
                "CanteenPostgres",
                "CanteenPersistence",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                "CanteenApp",
                "CanteenAPI",
                "CanteenFormat",
                "Beacons",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/CanteenTestSupport",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests
        .testTarget(
            name: "CanteenCoreTests",
            dependencies: ["CanteenCore", "CanteenJSON", "CanteenPersistence", "CanteenTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CanteenPersistenceTests",
            dependencies: ["CanteenCore", "CanteenPersistence", "CanteenTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CanteenJSONTests",
            dependencies: ["CanteenJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CanteenFormatTests",
            dependencies: ["CanteenCore", "CanteenFormat"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CanteenStoreTests",
            dependencies: [
                "CanteenCore", "CanteenJSON", "CanteenStore", "CanteenPostgres", "CanteenPersistence", "CanteenApp",
                "CanteenTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CanteenAPITests",
            dependencies: [
                "CanteenCore", "CanteenJSON", "CanteenStore", "CanteenAPI", "CanteenApp", "CanteenTestSupport",
                "Beacons",
                "CanteenPostgres", "CanteenFormat", "CanteenWeb", "CanteenIdentity",
                "CanteenNotify",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BeaconsTests",
            dependencies: ["Beacons", "CanteenRandom"],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NFCTests",
            dependencies: ["NFC", "CanteenRandom"],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CardReaderTests",
            dependencies: [
                "CardReader", "NFC",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            exclude: ["Emulator"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CanteenCLITests",
            dependencies: ["Beacons", "CanteenTestSupport", "CanteenSimulation"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["FuzzTargets"],
            resources: [.copy("Findings")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BlueZScannerTests",
            dependencies: [
                "Beacons", "BlueZScanner",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
