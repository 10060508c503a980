// swift-tools-version: 6.1
// Benchmarks, a package of their own so the main build and tests never compile them and a
// project depending on the MagicalRecord library never builds GRDB (the SQLite peer).
// `make bench` from the top runs mrbench; `swift run -c release mrbench|storebench` here.
import Foundation
import PackageDescription

/// A path dependency is identified by its folder's name, which differs between clones.
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "MagicalStoreBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The engine alone: bulk insert, gets, scans, commits, file size.
        .executableTarget(
            name: "storebench",
            dependencies: [.product(name: "MagicalStore", package: rootPackage)]
        ),
        // The object layer against SQLite (GRDB raw statements and GRDB records) on one workload.
        .executableTarget(
            name: "mrbench",
            dependencies: [
                .product(name: "MagicalRecord", package: rootPackage),
                .product(name: "MagicalStore", package: rootPackage),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
