// swift-tools-version: 6.0
// libFuzzer targets, kept out of the main package so its builds never see them.
// Build and run with `make fuzz` from the top (recipe in ../shared/TOOLCHAIN.md). Each
// target's check lives in Tests/FuzzReplayTests/Entries (linked into its folder), so
// `make test` replays the corpora through the same code without the sanitizer build.
import Foundation
import PackageDescription

/// A path dependency is identified by its folder's name, which differs between clones.
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "MagicalStoreFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzStoreFile",
            dependencies: [.product(name: "MagicalStore", package: rootPackage)]
        ),
        .executableTarget(
            name: "FuzzKeyDecoding",
            dependencies: [.product(name: "MagicalStore", package: rootPackage)]
        ),
        .executableTarget(
            name: "FuzzPageDecoding",
            dependencies: [.product(name: "MagicalStore", package: rootPackage)]
        ),
        .executableTarget(
            name: "FuzzJSONReader",
            dependencies: [.product(name: "MagicalRecord", package: rootPackage)]
        ),
        .executableTarget(
            name: "FuzzImport",
            dependencies: [
                .product(name: "MagicalRecord", package: rootPackage),
                .product(name: "MagicalStore", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "FuzzDirectImport",
            dependencies: [
                .product(name: "MagicalRecord", package: rootPackage),
                .product(name: "MagicalStore", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "FuzzPredicate",
            dependencies: [
                .product(name: "MagicalRecord", package: rootPackage),
                .product(name: "MagicalStore", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "FuzzRecordDecoding",
            dependencies: [
                .product(name: "MagicalRecord", package: rootPackage),
                .product(name: "MagicalStore", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "FuzzModelXML",
            dependencies: [.product(name: "MagicalRecord", package: rootPackage)]
        ),
        .executableTarget(
            name: "FuzzMemberRuns",
            dependencies: [.product(name: "MagicalRecord", package: rootPackage)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
