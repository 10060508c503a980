// swift-tools-version: 6.0
// Engine benchmarks, a package of their own so the main build and tests never compile
// them. Run with `swift run -c release storebench` here, or `make bench` from the top.
import Foundation
import PackageDescription

/// A path dependency is identified by its folder's name, which differs between clones.
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "MagicalStoreBenchmarks",
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "storebench",
            dependencies: [.product(name: "MagicalStore", package: rootPackage)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
