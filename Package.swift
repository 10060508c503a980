// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "MagicalRecord",
    products: [
        .library(name: "MagicalRecord", targets: ["MagicalRecord"]),
        .library(name: "MagicalStore", targets: ["MagicalStore"]),
        .executable(name: "mrstore", targets: ["mrstore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The system liblz4 (apt: liblz4-dev), used for page compression.
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        // The system libzstd (apt: libzstd-dev), the page compression that trades speed for size.
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        // CRC32C with SSE4.2 when the CPU has it, slicing-by-8 otherwise.
        .target(name: "CCRC32C"),
        // Cache prefetch hints for batch loops (`__builtin_prefetch`, which Swift lacks).
        .target(name: "CPrefetch"),
        // Starting a file's writeback without waiting (`sync_file_range`, which Swift's Glibc lacks).
        .target(name: "CWriteback"),
        // The storage engine: pages, the log, copy-on-write B+trees. Knows nothing of entities.
        .target(
            name: "MagicalStore",
            dependencies: ["CLZ4", "CZstd", "CCRC32C", "CWriteback"]
        ),
        // The object layer: models, contexts, fetching, import, migration. On top of MagicalStore.
        .target(
            name: "MagicalRecord",
            dependencies: [
                "MagicalStore",
                "CPrefetch",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "mrstore",
            dependencies: [
                "MagicalStore",
                "MagicalRecord",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The crash test's child process: runs a workload until killed, with a synced ledger.
        .executableTarget(
            name: "crashchild",
            dependencies: [
                "MagicalStore",
                "MagicalRecord",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "MagicalStoreTests",
            dependencies: ["MagicalStore"]
        ),
        .testTarget(
            name: "MagicalRecordTests",
            dependencies: ["MagicalRecord"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "FuzzReplayTests",
            dependencies: ["MagicalRecord", "MagicalStore"]
        ),
        .testTarget(
            name: "mrstoreTests",
            dependencies: ["mrstore", "MagicalStore", "MagicalRecord"]
        ),
        .testTarget(
            name: "crashchildTests",
            dependencies: ["crashchild", "MagicalStore", "MagicalRecord"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
